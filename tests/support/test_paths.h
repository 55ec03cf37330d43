#pragma once
#include <filesystem>
#include <string>

namespace olv2::test {

// Root of the golden fixtures: $OLV2_FIXTURES when set, else ../shared/fixtures beside the
// checkout. Returns an empty path when absent; see require_fixtures().
std::filesystem::path fixtures_dir();

// The fixture subdirectory `name`, or an empty path after calling GTEST_SKIP-style reporting:
// outside CI a missing fixture set skips the test with the reason; under CI=true it fails.
// Use through the OLV2_REQUIRE_FIXTURES macro.
std::filesystem::path fixture_path(const std::string& relative);

// The original Python code beside the checkout (../shared/reference/original, or
// $OLV2_REFERENCE_DIR), or an empty path when absent.
std::filesystem::path reference_dir();

// Directory holding the built apps (build/bin), for end-to-end tests.
std::filesystem::path bin_dir();

// Repository root (configs, scripts).
std::filesystem::path source_dir();

// A fresh, empty directory under the build tree, unique to this test. It is removed when the
// test ends without a failure (kept with OLV2_KEEP_SCRATCH=1).
std::filesystem::path scratch_dir(const std::string& name);

// Removes `dir` now unless the current test has failed so far: for tests that make several
// large scratch directories one after the other.
void discard_scratch_when_passing(const std::filesystem::path& dir);

// A fresh, empty directory for what several tests of one binary share (made once, in a
// function-local static): it outlives the test that made it.
std::filesystem::path shared_scratch_dir(const std::string& name);

// True when running under CI (CI=true): missing fixtures are then a failure, not a skip.
bool running_in_ci();

}  // namespace olv2::test

// Skips (outside CI) or fails (under CI) the current test when the fixture `relative` is absent.
#define OLV2_REQUIRE_FIXTURE(var, relative)                                          \
  const std::filesystem::path var = ::olv2::test::fixture_path(relative);            \
  if (var.empty()) {                                                                 \
    if (::olv2::test::running_in_ci()) {                                             \
      FAIL() << "fixture " << (relative) << " missing under CI (set OLV2_FIXTURES)"; \
    }                                                                                \
    GTEST_SKIP() << "fixture " << (relative) << " not found (set OLV2_FIXTURES)";    \
  }
