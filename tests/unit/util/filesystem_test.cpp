#include "olv2/util/filesystem.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "olv2/config/config_loader.h"
#include "olv2/data/frame_reader.h"
#include "olv2/util/error.h"
#include "olv2/util/pth/pth_file.h"
#include "support/input_error.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

using test::input_error_of;

TEST(ReadFile, ReturnsEveryByte) {
  const fs::path file = test::scratch_dir("read_file_bytes") / "bytes.bin";
  const std::string bytes("a\0b\r\n\xff", 6);
  std::ofstream(file, std::ios::binary) << bytes;
  EXPECT_EQ(read_file(file), bytes);
  const fs::path empty = file.parent_path() / "empty";
  std::ofstream(empty, std::ios::binary).flush();
  EXPECT_EQ(read_file(empty, "frame"), "");
}

TEST(ReadFile, AMissingFileIsNamedWithItsRoleAndTheSystemsReason) {
  const fs::path missing = test::scratch_dir("read_file_missing") / "nothing.yaml";
  EXPECT_EQ(input_error_of([&] { read_file(missing, "config file"); }),
            "config file " + missing.string() + ": cannot open: No such file or directory");
  EXPECT_EQ(input_error_of([&] { open_for_reading(missing); }),
            missing.string() + ": cannot open: No such file or directory");
}

TEST(ReadFile, ADirectoryIsAReadThatFailsWithTheSystemsReason) {
  const fs::path directory = test::scratch_dir("read_file_directory");
  const std::string message = input_error_of([&] { read_file(directory, "results"); });
  EXPECT_EQ(message.rfind("results " + directory.string() + ": ", 0), 0u) << message;
  EXPECT_NE(message.find("Is a directory"), std::string::npos) << message;
}

// The readers of users' files go through it: each names its file's role and why it failed.
TEST(ReadFile, TheReadersOfUsersFilesSayWhyAFileCannotBeRead) {
  const fs::path directory = test::scratch_dir("read_file_readers");
  const std::vector<std::pair<std::string, std::function<void()>>> readers = {
      {"config file", [&] { load_config_file(directory); }},
      {"collection", [&] { read_collection_splits(directory); }},
      {"file", [&] { read_pth(directory); }}};
  for (const auto& [role, read] : readers) {
    const std::string message = input_error_of(read);
    EXPECT_EQ(message.rfind(role + " " + directory.string() + ": read failed: Is a directory", 0),
              0u)
        << message;
  }
}

}  // namespace
}  // namespace olv2
