#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <fstream>

#include "olv2/util/error.h"
#include "olv2/util/pth/pth_file.h"
#include "olv2/util/pth/zip_reader.h"
#include "olv2/util/pth/zip_writer.h"
#include "pth_expectations.h"
#include "support/run_command.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

// A checkpoint with everything the writer promises: every dtype, views, a shared storage,
// nested dict/list/tuple with str and int keys, None/bool/int/float/str/bytes.
PthValue sample_checkpoint() {
  at::manual_seed(3);
  const at::Tensor base = at::randn({4, 6});
  PthDictItems tensors;
  tensors.emplace_back("float32", PthValue::tensor(base));
  tensors.emplace_back("transposed", PthValue::tensor(base.t()));
  tensors.emplace_back("row_slice", PthValue::tensor(base.narrow(0, 1, 2)));
  tensors.emplace_back("float64", PthValue::tensor(at::randn({3}, at::kDouble)));
  tensors.emplace_back("float16", PthValue::tensor(at::randn({2, 3}).to(at::kHalf)));
  tensors.emplace_back("bfloat16", PthValue::tensor(at::randn({5}).to(at::kBFloat16)));
  tensors.emplace_back("int64",
                       PthValue::tensor(at::arange(-3, 9, at::kLong) * int64_t{3000000019}));
  tensors.emplace_back("int32", PthValue::tensor(at::arange(-4, 4, at::kInt)));
  tensors.emplace_back("int16", PthValue::tensor(at::arange(-2, 2, at::kShort)));
  tensors.emplace_back("int8", PthValue::tensor(at::arange(-2, 2, at::kChar)));
  tensors.emplace_back("uint8", PthValue::tensor(at::arange(250, 256, at::kLong).to(at::kByte)));
  tensors.emplace_back("bool",
                       PthValue::tensor(at::arange(0, 5, at::kLong).remainder(2).to(at::kBool)));
  tensors.emplace_back("scalar", PthValue::tensor(at::scalar_tensor(1.5)));
  tensors.emplace_back("empty", PthValue::tensor(at::zeros({0, 2})));
  PthDictItems state;
  state.emplace_back(int64_t{0}, PthValue::dict({{"step", PthValue::from_int(3)}}));
  state.emplace_back(int64_t{7}, PthValue::dict({{"exp_avg", PthValue::tensor(at::ones({2}))}}));
  PthDictItems meta;
  meta.emplace_back("name", PthValue::from_string("épreuve \"quoted\"\n"));
  meta.emplace_back("epoch", PthValue::from_int(12));
  meta.emplace_back("big", PthValue::from_int(-(int64_t{1} << 62)));
  meta.emplace_back("medium", PthValue::from_int(70000));
  meta.emplace_back("lr", PthValue::from_float(2.5e-4));
  meta.emplace_back("flags", PthValue::tuple({PthValue::from_bool(true), PthValue::from_bool(false),
                                              PthValue()}));
  meta.emplace_back("blob", PthValue::from_bytes(std::string("\x00\x7f\x80\xff", 4)));
  meta.emplace_back("no_bytes", PthValue::from_bytes(""));
  meta.emplace_back("list",
                    PthValue::list({PthValue::from_int(1), PthValue::list(), PthValue::tuple()}));
  PthDictItems root;
  root.emplace_back("state_dict", PthValue::dict(std::move(tensors), /*ordered=*/true));
  root.emplace_back("optimizer", PthValue::dict({{"state", PthValue::dict(std::move(state))}}));
  root.emplace_back("meta", PthValue::dict(std::move(meta)));
  return PthValue::dict(std::move(root));
}

void expect_same_tree(const PthValue& a, const PthValue& b, const std::string& where) {
  ASSERT_EQ(a.kind(), b.kind()) << where;
  switch (a.kind()) {
    case PthValue::Kind::kDict:
      ASSERT_EQ(a.dict_items().size(), b.dict_items().size()) << where;
      EXPECT_EQ(a.is_ordered_dict(), b.is_ordered_dict()) << where;
      for (size_t i = 0; i < a.dict_items().size(); ++i) {
        EXPECT_TRUE(a.dict_items()[i].first == b.dict_items()[i].first) << where;
        expect_same_tree(a.dict_items()[i].second, b.dict_items()[i].second,
                         where + "/" + a.dict_items()[i].first.to_string());
      }
      break;
    case PthValue::Kind::kList:
    case PthValue::Kind::kTuple:
      ASSERT_EQ(a.items().size(), b.items().size()) << where;
      for (size_t i = 0; i < a.items().size(); ++i)
        expect_same_tree(a.items()[i], b.items()[i], where + "/" + std::to_string(i));
      break;
    case PthValue::Kind::kTensor: {
      const at::Tensor& x = a.as_tensor();
      const at::Tensor& y = b.as_tensor();
      EXPECT_EQ(x.scalar_type(), y.scalar_type()) << where;
      EXPECT_EQ(x.sizes(), y.sizes()) << where;
      EXPECT_EQ(x.strides(), y.strides()) << where;
      EXPECT_EQ(x.storage_offset(), y.storage_offset()) << where;
      EXPECT_TRUE(at::equal(x, y)) << where;
      break;
    }
    case PthValue::Kind::kBool:
      EXPECT_EQ(a.as_bool(), b.as_bool()) << where;
      break;
    case PthValue::Kind::kInt:
      EXPECT_EQ(a.as_int(), b.as_int()) << where;
      break;
    case PthValue::Kind::kFloat:
      EXPECT_EQ(a.as_float(), b.as_float()) << where;
      break;
    case PthValue::Kind::kString:
      EXPECT_EQ(a.as_string(), b.as_string()) << where;
      break;
    case PthValue::Kind::kBytes:
      EXPECT_EQ(a.as_bytes(), b.as_bytes()) << where;
      break;
    default:
      break;
  }
}

size_t count_values(const PthValue& value) {
  size_t count = 1;
  if (value.is_dict()) {
    for (const auto& entry : value.dict_items()) count += count_values(entry.second);
  } else if (value.is_sequence()) {
    for (const PthValue& item : value.items()) count += count_values(item);
  }
  return count;
}

TEST(PthWriter, WhatWeWriteWeReadBackIdentically) {
  const fs::path file = test::scratch_dir("pth") / "checkpoint.pth";
  const PthValue written = sample_checkpoint();
  write_pth(file, written);
  const PthValue read = read_pth(file);
  expect_same_tree(written, read, "");
  const PthValue& tensors = read.at("state_dict");
  EXPECT_EQ(tensors.at("transposed").as_tensor().data_ptr(),
            tensors.at("float32").as_tensor().data_ptr());
}

TEST(PthWriter, RereadingTheTestFilesAndWritingThemAgainKeepsEveryFact) {
  const nlohmann::json files = test::read_json(test::pth_data_dir() / "expected.json")["files"];
  const fs::path dir = test::scratch_dir("rewrite");
  for (const auto& [name, record] : files.items()) {
    write_pth(dir / name, read_pth(test::pth_data_dir() / name));
    test::expect_all_facts(read_pth(dir / name), record["values"], "rewritten " + name);
  }
}

TEST(PthWriter, EntriesAreCompleteAndTheirDataIs64ByteAligned) {
  const std::string bytes = serialize_pth(sample_checkpoint());
  ASSERT_EQ(detect_pth_format(bytes), PthFormat::kZip);
  const ZipReader zip(bytes);
  for (const char* name :
       {"archive/data.pkl", "archive/version", "archive/byteorder", "archive/data/0"}) {
    EXPECT_NE(zip.find(name), nullptr) << name;
  }
  EXPECT_EQ(zip.read(*zip.find("archive/version")), "3\n");
  for (const ZipReader::Entry& entry : zip.entries()) {
    const auto offset = static_cast<size_t>(zip.read(entry).data() - bytes.data());
    EXPECT_EQ(offset % 64, 0U) << entry.name;
  }
}

TEST(PthWriter, OpaqueValuesAreRefusedAndNoFileIsLeft) {
  const fs::path dir = test::scratch_dir("refused");
  const PthValue value =
      PthValue::dict({{"x", PthValue::opaque({"argparse.Namespace", "", false})}});
  EXPECT_THROW(write_pth(dir / "bad.pth", value), Error);
  EXPECT_TRUE(fs::is_empty(dir));
}

// Python's torch.load with its defaults: Debian's torch 1.13 (/usr/bin/python3) and PyTorch 2.11
// in the project's .venv, whose unpickler runs with weights_only=True and accepts only the
// globals a state dict needs.
class PythonTorchLoad : public ::testing::TestWithParam<std::string> {};

TEST_P(PythonTorchLoad, ReadsWhatWeWrite) {
  const std::string python =
      GetParam() == "venv" ? (test::source_dir() / ".venv/bin/python").string() : GetParam();
  if (test::run_command("'" + python + "' -c 'import torch, numpy'").exit_status != 0) {
    if (test::running_in_ci()) FAIL() << python << " cannot import torch and numpy under CI";
    GTEST_SKIP() << python << " cannot import torch and numpy (scripts/install_test_deps.sh)";
  }
  const fs::path dir = test::scratch_dir("python");
  const PthValue written = sample_checkpoint();
  write_pth(dir / "checkpoint.pth", written);
  const test::CommandResult result = test::run_command(
      "'" + python + "' '" + (test::source_dir() / "scripts" / "describe_pth.py").string() + "' '" +
      (dir / "checkpoint.pth").string() + "'");
  ASSERT_EQ(result.exit_status, 0) << result.output;
  const nlohmann::json facts = nlohmann::json::parse(result.output);
  EXPECT_EQ(facts.size(), count_values(written)) << "paths described by Python: " << facts.dump();
  test::expect_all_facts(written, facts, "python view of checkpoint.pth");
}

INSTANTIATE_TEST_SUITE_P(Pythons, PythonTorchLoad, ::testing::Values("/usr/bin/python3", "venv"),
                         [](const auto& info) {
                           return info.param == "venv" ? std::string("PyTorch2_11InVenv")
                                                       : std::string("DebianTorch1_13");
                         });

// A full disk is named as the system names it: /dev/full refuses every write with ENOSPC.
TEST(PthWriter, AFailedWriteSaysTheSystemsReason) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  std::ofstream out("/dev/full", std::ios::binary);
  ZipWriter zip(out);
  try {
    zip.add("archive/data/0", std::string(std::size_t{1} << 20, 'x'));  // past the stream buffer
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("No space left on device"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace olv2
