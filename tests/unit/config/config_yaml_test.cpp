// to_yaml writes the resolved config so that it reads back with the same values, here and in
// YAML 1.1 readers (PyYAML's yaml.safe_load, which is what Python tooling uses on it).
#include "olv2/config/config_yaml.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "olv2/config/config_loader.h"
#include "support/python_yaml.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

// Values that YAML 1.1 and our reader could take differently, each on its own key.
const char* const kEdgeValues = R"(neg: -5e1
small: 1e-5
big: 1e+20
no_dot: 2E3
tiny: 5e-324
underflow: 1e-400
third: 0.1
pi: 3.141592653589793
million: 1000000.0
neg_zero: -0.0
plus_inf: .inf
minus_inf: -.inf
not_a_number: .nan
int: 42
neg_int: -7
plus_int: +7
hex: 0x1F
leading_zero: 010
past_double: 9007199254740993
bool: true
capital_bool: False
quoted_float: "1e-05"
quoted_int: '42'
quoted_bool: "true"
yes_word: yes
quoted_on: "on"
quoted_null: "null"
tilde: "~"
empty: ""
underscored: 1_000
sexagesimal: 1:20
date: 2001-12-14
colon: "a: b"
hash: "a #b"
spaces: " padded "
dash: "-x"
quote: "say \"hi\"\\"
newline: "a\nb"
unicode: "é"
path: /data/OpenLane-V2
relative: ./data
dotted: data.train
list: [1, 2.5, "3", yes, null, 1e-5, -50.0]
nested: [[1, 2], [], [[3]]]
empty_map: {}
maps: [{type: X, k: 1e-5}, {}]
"1": key that looks like an int
yes: key that looks like a bool
)";

ConfigNode edge_values() { return parse_yaml(kEdgeValues, "edge.yaml"); }

std::string line_of(const std::string& text, const std::string& key) {
  const size_t start = text.find("\n" + key + ": ");
  if (start == std::string::npos) return "";
  const size_t end = text.find('\n', start + 1);
  return text.substr(start + 1, end - start - 1);
}

TEST(ConfigYaml, FloatsKeepAPointAndASignedExponent) {
  const std::string text = "\n" + to_yaml(edge_values());
  EXPECT_EQ(line_of(text, "neg"), "neg: -50.0");
  EXPECT_EQ(line_of(text, "small"), "small: 1.0e-05");
  EXPECT_EQ(line_of(text, "big"), "big: 1.0e+20");
  EXPECT_EQ(line_of(text, "no_dot"), "no_dot: 2000.0");
  EXPECT_EQ(line_of(text, "tiny"), "tiny: 5.0e-324");
  EXPECT_EQ(line_of(text, "underflow"), "underflow: 0.0");
  EXPECT_EQ(line_of(text, "third"), "third: 0.1");
  EXPECT_EQ(line_of(text, "pi"), "pi: 3.141592653589793");
  EXPECT_EQ(line_of(text, "million"), "million: 1000000.0");
  EXPECT_EQ(line_of(text, "neg_zero"), "neg_zero: -0.0");
  EXPECT_EQ(line_of(text, "plus_inf"), "plus_inf: .inf");
  EXPECT_EQ(line_of(text, "minus_inf"), "minus_inf: -.inf");
  EXPECT_EQ(line_of(text, "not_a_number"), "not_a_number: .nan");
  EXPECT_EQ(line_of(text, "list"), "list: [1, 2.5, \"3\", \"yes\", null, 1.0e-05, -50.0]");
}

TEST(ConfigYaml, IntegersAreWrittenInDecimal) {
  const std::string text = "\n" + to_yaml(edge_values());
  EXPECT_EQ(line_of(text, "plus_int"), "plus_int: 7");
  EXPECT_EQ(line_of(text, "hex"), "hex: 31");
  EXPECT_EQ(line_of(text, "leading_zero"), "leading_zero: 10");  // YAML 1.1 would read 8
  EXPECT_EQ(line_of(text, "past_double"), "past_double: 9007199254740993");
}

TEST(ConfigYaml, StringsThatReadAsAnythingElseAreQuoted) {
  const std::string text = "\n" + to_yaml(edge_values());
  EXPECT_EQ(line_of(text, "quoted_float"), "quoted_float: \"1e-05\"");
  EXPECT_EQ(line_of(text, "quoted_int"), "quoted_int: \"42\"");
  EXPECT_EQ(line_of(text, "yes_word"), "yes_word: \"yes\"");
  EXPECT_EQ(line_of(text, "quoted_null"), "quoted_null: \"null\"");
  EXPECT_EQ(line_of(text, "underscored"), "underscored: \"1_000\"");
  EXPECT_EQ(line_of(text, "sexagesimal"), "sexagesimal: \"1:20\"");
  EXPECT_EQ(line_of(text, "date"), "date: \"2001-12-14\"");
  EXPECT_EQ(line_of(text, "newline"), "newline: \"a\\nb\"");
  EXPECT_EQ(line_of(text, "path"), "path: /data/OpenLane-V2");
  EXPECT_EQ(line_of(text, "\"1\""), "\"1\": \"key that looks like an int\"");
  EXPECT_EQ(line_of(text, "\"yes\""), "\"yes\": \"key that looks like a bool\"");
}

TEST(ConfigYaml, ReadsBackWithTheSameValuesHere) {
  const ConfigNode original = edge_values();
  const std::string text = to_yaml(original);
  const ConfigNode again = parse_yaml(text, "again.yaml");
  EXPECT_EQ(to_yaml(again), text);
  EXPECT_EQ(again.at("small").as_double(), 1e-5);
  EXPECT_EQ(again.at("pi").as_double(), 3.141592653589793);
  EXPECT_EQ(again.at("tiny").as_double(), 5e-324);
  EXPECT_EQ(again.at("leading_zero").as_int(), 10);
  EXPECT_EQ(again.at("quoted_float").as_string(), "1e-05");
  EXPECT_FALSE(again.at("quoted_float").is_number());
  EXPECT_EQ(again.at("quote").as_string(), "say \"hi\"\\");
  EXPECT_EQ(again.at("newline").as_string(), "a\nb");
  EXPECT_EQ(again.at("maps")[0].at("k").as_double(), 1e-5);
  EXPECT_TRUE(again.at("maps")[1].is_map());
  EXPECT_EQ(again.at("nested")[2][0][0].as_int(), 3);
}

void expect_python_reads_back(const ConfigNode& config, const std::string& name) {
  const fs::path file = test::scratch_dir("python") / (name + ".yaml");
  std::ofstream(file) << to_yaml(config);
  const nlohmann::json values = test::python_yaml_values(file);
  if (values.is_null()) return;
  test::expect_same_values(config, values);
}

TEST(ConfigYaml, PyYamlReadsTheEdgeValuesBackUnchanged) {
  OLV2_REQUIRE_PYTHON_YAML();
  expect_python_reads_back(edge_values(), "edge");
}

TEST(ConfigYaml, PyYamlReadsEveryResolvedConfigBackUnchanged) {
  OLV2_REQUIRE_PYTHON_YAML();
  size_t configs = 0;
  for (const auto& entry : fs::recursive_directory_iterator(test::source_dir() / "configs")) {
    if (entry.path().extension() != ".yaml") continue;
    SCOPED_TRACE(entry.path().string());
    expect_python_reads_back(load_config_file(entry.path()), entry.path().stem().string());
    ++configs;
  }
  EXPECT_GE(configs, 4u);
}

}  // namespace
}  // namespace olv2
