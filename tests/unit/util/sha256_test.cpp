// SHA-256 against the FIPS 180-4 examples and sha256sum, across the padding's block boundary.
#include "olv2/util/sha256.h"

#include <gtest/gtest.h>

#include <string>

#include "support/run_command.h"
#include "support/temp_files.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

TEST(Sha256, EqualsTheStandardsExamples) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, EqualsSha256sumAroundTheBlockBoundary) {
  const std::filesystem::path dir = test::scratch_dir("sha256");
  for (size_t size : {55, 56, 63, 64, 65, 119, 120, 128, 1000}) {
    std::string data(size, '\0');
    for (size_t i = 0; i < size; ++i) data[i] = static_cast<char>((i * 131 + size) % 256);
    const std::filesystem::path file = test::write_text(dir, "data.bin", data);
    const test::CommandResult result = test::run_command("sha256sum '" + file.string() + "'");
    ASSERT_EQ(result.exit_status, 0) << result.output;
    EXPECT_EQ(result.output.substr(0, 64), sha256_hex(data)) << size << " bytes";
  }
}

}  // namespace
}  // namespace olv2
