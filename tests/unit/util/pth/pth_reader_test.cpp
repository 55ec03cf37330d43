#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "olv2/util/error.h"
#include "olv2/util/pth/pickle_reader.h"
#include "olv2/util/pth/pth_file.h"
#include "pth_expectations.h"

namespace olv2 {
namespace {

using test::pth_data_dir;

nlohmann::json expected_files() {
  return test::read_json(pth_data_dir() / "expected.json")["files"];
}

TEST(PthReader, EveryTestFileMatchesWhatPythonRecorded) {
  const nlohmann::json files = expected_files();
  ASSERT_FALSE(files.empty());
  for (const auto& [name, record] : files.items()) {
    SCOPED_TRACE(name);
    const PthValue root = read_pth(pth_data_dir() / name);
    test::expect_all_facts(root, record["values"], name);
  }
}

TEST(PthReader, DetectsBothFormats) {
  const nlohmann::json files = expected_files();
  for (const auto& [name, record] : files.items()) {
    std::ifstream in(pth_data_dir() / name, std::ios::binary);
    std::string head(16, '\0');
    in.read(head.data(), 16);
    EXPECT_EQ(to_string(detect_pth_format(head)), record["format"].get<std::string>()) << name;
  }
}

TEST(PthReader, TransposedViewKeepsItsStridesOverTheSameStorage) {
  for (const char* name : {"views.pth", "views_legacy.pth"}) {
    const PthValue root = read_pth(pth_data_dir() / name);
    const at::Tensor base = root.at("base").as_tensor();
    const at::Tensor transposed = root.at("transposed").as_tensor();
    EXPECT_FALSE(transposed.is_contiguous()) << name;
    EXPECT_TRUE(at::equal(transposed, base.t())) << name;
    EXPECT_EQ(transposed.data_ptr(), base.data_ptr()) << name;
  }
}

TEST(PthReader, TensorsSavedFromOneStorageShareIt) {
  const PthValue root = read_pth(pth_data_dir() / "shared_storage.pth");
  at::Tensor a = root.at("a").as_tensor();
  const at::Tensor b = root.at("b").as_tensor();
  const at::Tensor c = root.at("c").as_tensor();
  const float before = b[1].item<float>();
  a[3] = before + 100.0F;  // b = a[2:6], c = a.view(2, 5)
  EXPECT_EQ(b[1].item<float>(), before + 100.0F);
  EXPECT_EQ(c[0][3].item<float>(), before + 100.0F);
}

TEST(PthReader, ContainersReachedTwiceAreOneObject) {
  // mmcv checkpoints reuse the numpy dtype object through the memo; both scalars decode.
  const PthValue root = read_pth(pth_data_dir() / "mmcv_checkpoint.pth");
  const PthValue& meta = root.at("meta");
  EXPECT_EQ(meta.at("loss").kind(), PthValue::Kind::kFloat);
  EXPECT_EQ(meta.at("hook_msgs").at("best_score").kind(), PthValue::Kind::kFloat);
}

TEST(PthReader, MissingFileNamesIt) {
  try {
    read_pth(pth_data_dir() / "no_such_file.pth");
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("no_such_file.pth"), std::string::npos)
        << error.what();
    EXPECT_EQ(error.status(), ExitStatus::kBadInput);
  }
}

TEST(PthReader, HugeDeclaredStorageIsRefusedBeforeAllocating) {
  std::ifstream in(pth_data_dir() / "views_legacy.pth", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Every persistent id of this file declares 24 elements: BININT1 24, then view metadata None.
  const std::string small("K\x18Nt", 4);
  const std::string huge("J\x00\x00\x00\x40Nt", 7);  // 2^30 floats: 4 GiB
  size_t replaced = 0;
  for (size_t at = bytes.find(small); at != std::string::npos;
       at = bytes.find(small, at + huge.size())) {
    bytes.replace(at, small.size(), huge);
    ++replaced;
  }
  ASSERT_GT(replaced, 0U);
  try {
    parse_pth(bytes);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("more than the file holds"), std::string::npos)
        << error.what();
  }
}

PthValue no_storages(const PthValue&) { throw input_error("no storages here"); }

TEST(PthReader, UnknownClassesStayOpaqueWithTheirTypeName) {
  // {"x": argparse.Namespace()} and os.system("echo"), hand-assembled protocol-2 pickles.
  const std::string object("\x80\x02}X\x01\x00\x00\x00xcargparse\nNamespace\n)\x81}bs.", 35);
  const PthValue dict = unpickle(object, no_storages);
  EXPECT_EQ(dict.at("x").as_opaque().type_name, "argparse.Namespace");
  const std::string call(
      "\x80\x02"
      "cos\nsystem\nX\x04\x00\x00\x00"
      "echo\x85R.",
      25);
  const PthValue result = unpickle(call, no_storages);
  EXPECT_EQ(result.as_opaque().type_name, "os.system");
  EXPECT_FALSE(result.as_opaque().is_global);
}

}  // namespace
}  // namespace olv2
