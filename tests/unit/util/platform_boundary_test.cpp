// The platform layer's promise: no source of the project outside platform_posix.cpp and
// platform_windows.cpp includes an OS header (tests may).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <string>

#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

TEST(PlatformBoundary, NoSourceOutsideThePlatformLayerIncludesAnOsHeader) {
  const std::regex os_header(
      R"(^\s*#\s*include\s*<(unistd\.h|sched\.h|pthread\.h|dlfcn\.h|windows\.h|io\.h|fcntl\.h|psapi\.h|tlhelp32\.h|sys/[^>]+)>)",
      std::regex::icase);
  size_t scanned = 0;
  for (const char* dir : {"src", "include", "bench"}) {
    for (const auto& entry : fs::recursive_directory_iterator(test::source_dir() / dir)) {
      const std::string name = entry.path().filename().string();
      if (!entry.is_regular_file() || name.rfind("platform_", 0) == 0) continue;
      if (entry.path().extension() != ".cpp" && entry.path().extension() != ".h") continue;
      std::ifstream in(entry.path());
      int line_number = 0;
      for (std::string line; std::getline(in, line);) {
        ++line_number;
        EXPECT_FALSE(std::regex_search(line, os_header))
            << entry.path().string() << ":" << line_number << ": " << line;
      }
      ++scanned;
    }
  }
  EXPECT_GT(scanned, 200u);
}

}  // namespace
}  // namespace olv2
