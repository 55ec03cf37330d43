#pragma once
// Compares a PthValue tree with the facts Python recorded about the same object
// (scripts/make_pth_test_files.py: {"/"-joined key path: {kind, value | keys | dtype, ...}}).
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "olv2/util/pth/pth_print.h"
#include "olv2/util/pth/pth_value.h"
#include "support/test_paths.h"

namespace olv2::test {

inline std::filesystem::path pth_data_dir() { return source_dir() / "tests" / "data" / "pth"; }

inline nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// The value at `path` ("meta/CLASSES/0"); dict keys are tried as strings, then as ints.
inline const PthValue* value_at(const PthValue& root, const std::string& path) {
  const PthValue* node = &root;
  std::stringstream parts(path);
  std::string part;
  while (!path.empty() && std::getline(parts, part, '/')) {
    if (node->is_dict()) {
      const PthValue* next = node->find(part);
      if (next == nullptr && !part.empty() &&
          part.find_first_not_of("-0123456789") == std::string::npos) {
        next = node->find(static_cast<int64_t>(std::stoll(part)));
      }
      if (next == nullptr) return nullptr;
      node = next;
    } else if (node->is_sequence()) {
      const size_t index = std::stoul(part);
      if (index >= node->items().size()) return nullptr;
      node = &node->items()[index];
    } else {
      return nullptr;
    }
  }
  return node;
}

inline std::vector<int64_t> ints(const nlohmann::json& array) {
  return array.get<std::vector<int64_t>>();
}

// Relative tolerance of sums: both sides add the same float64 values, possibly in another order.
constexpr double kSumTolerance = 1e-9;

inline void expect_tensor_facts(const at::Tensor& tensor, const nlohmann::json& facts,
                                const std::string& where) {
  EXPECT_EQ(dtype_name(tensor.scalar_type()), facts["dtype"].get<std::string>()) << where;
  EXPECT_EQ(tensor.sizes().vec(), ints(facts["shape"])) << where;
  EXPECT_EQ(tensor.strides().vec(), ints(facts["stride"])) << where;
  EXPECT_EQ(tensor.storage_offset(), facts["storage_offset"].get<int64_t>()) << where;
  const at::Tensor flat = tensor.reshape(-1)
                              .to(tensor.scalar_type() == at::kBool ? at::kLong : at::kDouble)
                              .to(at::kDouble);
  const double sum = flat.sum().item<double>();
  const double expected_sum = facts["sum"].get<double>();
  EXPECT_NEAR(sum, expected_sum, kSumTolerance * (1.0 + std::abs(expected_sum))) << where;
  const auto first = facts["first"].get<std::vector<double>>();
  ASSERT_GE(flat.numel(), static_cast<int64_t>(first.size())) << where;
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(flat[static_cast<int64_t>(i)].item<double>(), first[i]) << where << " element " << i;
  }
}

inline void expect_facts(const PthValue& value, const nlohmann::json& facts,
                         const std::string& where) {
  const std::string kind = facts["kind"].get<std::string>();
  if (kind == "tensor") {
    ASSERT_TRUE(value.is_tensor()) << where << " is a " << value.kind_name();
    expect_tensor_facts(value.as_tensor(), facts, where);
  } else if (kind == "dict" || kind == "ordered_dict") {
    ASSERT_TRUE(value.is_dict()) << where << " is a " << value.kind_name();
    EXPECT_EQ(value.is_ordered_dict(), kind == "ordered_dict") << where;
    std::vector<std::string> keys;
    for (const auto& entry : value.dict_items()) keys.push_back(entry.first.to_string());
    EXPECT_EQ(keys, facts["keys"].get<std::vector<std::string>>()) << where;
  } else if (kind == "list" || kind == "tuple") {
    ASSERT_EQ(value.kind(), kind == "list" ? PthValue::Kind::kList : PthValue::Kind::kTuple)
        << where;
    EXPECT_EQ(value.items().size(), facts["length"].get<size_t>()) << where;
  } else if (kind == "bool") {
    EXPECT_EQ(value.as_bool(), facts["value"].get<bool>()) << where;
  } else if (kind == "int") {
    EXPECT_EQ(value.as_int(), facts["value"].get<int64_t>()) << where;
  } else if (kind == "float") {
    ASSERT_EQ(value.kind(), PthValue::Kind::kFloat) << where;
    EXPECT_EQ(value.as_float(), facts["value"].get<double>()) << where;
  } else if (kind == "str") {
    EXPECT_EQ(value.as_string(), facts["value"].get<std::string>()) << where;
  } else if (kind == "bytes") {
    const auto bytes = facts["value"].get<std::vector<int>>();
    EXPECT_EQ(value.as_bytes(), std::string(bytes.begin(), bytes.end())) << where;
  } else {
    ASSERT_EQ(kind, "none") << where;
    EXPECT_TRUE(value.is_none()) << where;
  }
}

// Checks every recorded path of `expected_values` against `root`.
inline void expect_all_facts(const PthValue& root, const nlohmann::json& expected_values,
                             const std::string& file) {
  ASSERT_FALSE(expected_values.empty()) << file;
  for (const auto& [path, facts] : expected_values.items()) {
    const PthValue* value = value_at(root, path);
    ASSERT_NE(value, nullptr) << file << ": no value at `" << path << "`";
    expect_facts(*value, facts, file + ": `" + path + "`");
  }
}

}  // namespace olv2::test
