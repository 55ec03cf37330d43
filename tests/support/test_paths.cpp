#include "support/test_paths.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

namespace olv2::test {

namespace fs = std::filesystem;

fs::path fixtures_dir() {
  if (const char* env = std::getenv("OLV2_FIXTURES"); env != nullptr && *env != '\0') {
    return fs::path(env);
  }
  return fs::path(OLV2_DEFAULT_FIXTURES_DIR);
}

fs::path fixture_path(const std::string& relative) {
  fs::path path = fixtures_dir() / relative;
  return fs::exists(path) ? path : fs::path();
}

fs::path reference_dir() {
  fs::path dir = source_dir().parent_path() / "shared" / "reference" / "original";
  if (const char* env = std::getenv("OLV2_REFERENCE_DIR"); env != nullptr && *env != '\0') {
    dir = fs::path(env);
  }
  return fs::exists(dir / "sources.tar.xz") ? dir : fs::path();
}

fs::path bin_dir() {
  if (const char* env = std::getenv("OLV2_BIN_DIR"); env != nullptr && *env != '\0') {
    return fs::path(env);
  }
  return fs::path(OLV2_BINARY_DIR) / "bin";
}

fs::path source_dir() { return fs::path(OLV2_SOURCE_DIR); }

namespace {

std::vector<fs::path>& current_test_scratch() {
  static std::vector<fs::path> dirs;
  return dirs;
}

bool keep_scratch() {
  const char* keep = std::getenv("OLV2_KEEP_SCRATCH");
  return keep != nullptr && std::string(keep) == "1";
}

// Training tests write checkpoints of 140 MB each: a suite that kept them all would need
// some 20 GB of disk. A test's scratch goes when it ends without a failure; a failed test's
// stays for inspection.
class ScratchCleaner : public ::testing::EmptyTestEventListener {
 public:
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (!info.result()->Failed() && !keep_scratch()) {
      for (const fs::path& dir : current_test_scratch()) {
        std::error_code ignored;
        fs::remove_all(dir, ignored);
      }
    }
    current_test_scratch().clear();
  }
};

const bool scratch_cleaner_registered = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new ScratchCleaner);
  return true;
}();

fs::path fresh_directory(const std::string& name) {
  fs::path dir = fs::path(OLV2_BINARY_DIR) / "test_scratch" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace

fs::path scratch_dir(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  if (info == nullptr) return fresh_directory(name);
  fs::path dir =
      fresh_directory(std::string(info->test_suite_name()) + "." + info->name() + "." + name);
  current_test_scratch().push_back(dir);
  return dir;
}

void discard_scratch_when_passing(const fs::path& dir) {
  if (::testing::Test::HasFailure() || keep_scratch()) return;
  std::error_code ignored;
  fs::remove_all(dir, ignored);
}

fs::path shared_scratch_dir(const std::string& name) { return fresh_directory("shared." + name); }

bool running_in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

}  // namespace olv2::test
