// Truncated and corrupted .pth files must give olv2::Error (or a well-formed tree), never a
// crash, a foreign exception or a giant allocation. Variants are made in-process from the test
// files with fixed seeds, so every run checks the same inputs.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "olv2/util/error.h"
#include "olv2/util/pth/pickle_reader.h"
#include "olv2/util/pth/pth_file.h"
#include "olv2/util/pth/pth_formats.h"
#include "olv2/util/pth/zip_reader.h"
#include "pth_expectations.h"

namespace olv2 {
namespace {

constexpr int kTruncations = 120;
constexpr int kSingleFlips = 200;
constexpr int kBurstFlips = 80;

std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<std::string> test_files() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(test::pth_data_dir())) {
    if (entry.path().extension() == ".pth") names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Corrupt variants of `bytes`: prefixes, single random bytes, and bursts of random bytes.
std::vector<std::string> variants(const std::string& bytes, uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<std::string> out;
  for (int i = 0; i < kTruncations; ++i)
    out.push_back(bytes.substr(0, bytes.size() * static_cast<size_t>(i) / kTruncations));
  std::uniform_int_distribution<size_t> position(0, bytes.size() - 1);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int i = 0; i < kSingleFlips; ++i) {
    std::string copy = bytes;
    copy[position(random)] = static_cast<char>(byte(random));
    out.push_back(std::move(copy));
  }
  for (int i = 0; i < kBurstFlips; ++i) {
    std::string copy = bytes;
    const size_t start = position(random);
    for (size_t k = start; k < std::min(copy.size(), start + 8); ++k)
      copy[k] = static_cast<char>(byte(random));
    out.push_back(std::move(copy));
  }
  return out;
}

// Parses `input` with `parse`; an olv2::Error is a pass, a parsed tree must print.
template <typename Parse>
void expect_error_or_tree(const std::string& input, const Parse& parse, const std::string& where,
                          int& errors) {
  try {
    const PthValue value = parse(input);
    std::ostringstream printed;
    print_pth_tree(printed, value, {true, 16});
    EXPECT_FALSE(printed.str().empty()) << where;
  } catch (const Error& error) {
    EXPECT_GT(std::string(error.what()).size(), 10U) << where << ": " << error.what();
    ++errors;
  } catch (const std::exception& error) {
    ADD_FAILURE() << where << ": foreign exception: " << error.what();
  }
}

TEST(PthRobustness, CorruptFilesGiveErrorsNotCrashes) {
  uint32_t seed = 1;
  for (const std::string& name : test_files()) {
    int errors = 0;
    const std::vector<std::string> inputs =
        variants(file_bytes(test::pth_data_dir() / name), seed++);
    for (size_t i = 0; i < inputs.size(); ++i) {
      expect_error_or_tree(inputs[i], parse_pth, name + " variant " + std::to_string(i), errors);
    }
    EXPECT_GE(errors, kTruncations - 1) << name << ": every proper prefix must fail";
  }
}

// The zip CRC catches most flips before the pickle is read, so the pickles of the zip files
// are also corrupted directly, with storages served whatever they ask for.
TEST(PthRobustness, CorruptPicklesGiveErrorsNotCrashes) {
  const PersistentLoader any_storage = [](const PthValue& id) {
    const StorageId storage = parse_storage_id(id);
    return PthValue::storage(at::zeros({std::min<int64_t>(storage.numel, 64)},
                                       at::TensorOptions().dtype(storage.dtype)));
  };
  uint32_t seed = 1000;
  for (const std::string& name : test_files()) {
    const std::string bytes = file_bytes(test::pth_data_dir() / name);
    if (detect_pth_format(bytes) != PthFormat::kZip) continue;
    const ZipReader zip(bytes);
    std::string pickle;
    for (const auto& entry : zip.entries()) {
      if (entry.name.size() > 8 && entry.name.compare(entry.name.size() - 8, 8, "data.pkl") == 0) {
        pickle = std::string(zip.read(entry));
      }
    }
    ASSERT_FALSE(pickle.empty()) << name;
    int errors = 0;
    const auto parse = [&](const std::string& input) { return unpickle(input, any_storage); };
    const std::vector<std::string> inputs = variants(pickle, seed++);
    for (size_t i = 0; i < inputs.size(); ++i) {
      expect_error_or_tree(inputs[i], parse, name + " pickle variant " + std::to_string(i), errors);
    }
    EXPECT_GT(errors, 0) << name;
  }
}

}  // namespace
}  // namespace olv2
