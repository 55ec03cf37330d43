#include "support/test_paths.h"

#include <gtest/gtest.h>

#include <cstdlib>

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

fs::path scratch_dir(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string unique = name;
  if (info != nullptr) {
    unique = std::string(info->test_suite_name()) + "." + info->name() + "." + name;
  }
  fs::path dir = fs::path(OLV2_BINARY_DIR) / "test_scratch" / unique;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

bool running_in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

}  // namespace olv2::test
