#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "support/run_command.h"
#include "support/test_paths.h"

namespace olv2::test {

// The Pythons that read what we write for Python: Debian's /usr/bin/python3 (numpy 1.x, the
// devkit's era) and the project's .venv (numpy 2.x); "debian" or "venv".
std::string python_executable(const std::string& which);

// True when `python` can import numpy.
bool python_has_numpy(const std::string& python);

// Runs the Python program `source` with `python`, the program written into `scratch` first,
// with `arguments` as its arguments.
CommandResult run_python(const std::string& python, const std::string& source,
                         const std::vector<std::string>& arguments,
                         const std::filesystem::path& scratch);

// Runs the official devkit's `check_results` (openlanev2/preprocessing/check.py of the
// original sources, on its own, without the package that imports the whole devkit) with
// Debian's Python on the submission pickle `pickle`. Prints "check_results: valid" or
// "check_results: not valid" after what check_results prints; exits non-zero when it raises.
CommandResult run_devkit_check_results(const std::filesystem::path& pickle,
                                       const std::filesystem::path& scratch);

}  // namespace olv2::test

// Skips (outside CI) or fails (under CI) the current test when `python` lacks numpy.
#define OLV2_REQUIRE_NUMPY(python)                                                            \
  if (!::olv2::test::python_has_numpy(python)) {                                              \
    if (::olv2::test::running_in_ci()) FAIL() << (python) << " cannot import numpy under CI"; \
    GTEST_SKIP() << (python) << " cannot import numpy (scripts/install_test_deps.sh)";        \
  }

// The same for the original sources that hold the devkit (../shared/reference/original).
#define OLV2_REQUIRE_DEVKIT_SOURCES()                                                         \
  if (::olv2::test::reference_dir().empty()) {                                                \
    if (::olv2::test::running_in_ci()) FAIL() << "the original sources are missing under CI"; \
    GTEST_SKIP() << "the original sources (../shared/reference/original) are not there";      \
  }
