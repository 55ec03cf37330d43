#include "support/python_yaml.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "support/run_command.h"
#include "support/test_paths.h"

namespace olv2::test {

namespace {

const char* const kPython = "/usr/bin/python3";

const char* const kTagScript = R"(import json, sys, yaml

def tag(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, float):
        return {"float": v.hex()}
    if isinstance(v, str):
        return {"str": v}
    if isinstance(v, list):
        return [tag(x) for x in v]
    if isinstance(v, dict):
        return {"map": [[k if isinstance(k, str) else repr(k), tag(x)] for k, x in v.items()]}
    return {"unexpected": type(v).__name__ + " " + repr(v)}

with open(sys.argv[1], encoding="utf-8") as f:
    print(json.dumps(tag(yaml.safe_load(f))))
)";

std::string join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

bool same_double(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof(double)) == 0;
}

nlohmann::json tagged_scalar(const ConfigNode& node) {
  if (node.quoted()) return {{"str", node.text()}};
  if (node.is_bool()) return {{"bool", node.as_bool()}};
  if (node.is_int()) return {{"int", std::to_string(node.as_int())}};
  if (node.is_number()) return {{"float", node.as_written_double()}};
  return {{"str", node.text()}};
}

}  // namespace

bool python_yaml_available() {
  return run_command(std::string(kPython) + " -c 'import yaml'").exit_status == 0;
}

nlohmann::json python_yaml_values(const std::filesystem::path& yaml_file) {
  const std::filesystem::path script = scratch_dir("python_yaml") / "tag_values.py";
  std::ofstream(script) << kTagScript;
  const CommandResult result =
      run_command(std::string(kPython) + " '" + script.string() + "' '" + yaml_file.string() + "'");
  if (result.exit_status != 0) {
    ADD_FAILURE() << "yaml.safe_load failed on " << yaml_file << ":\n" << result.output;
    return nullptr;
  }
  return nlohmann::json::parse(result.output);
}

void expect_same_values(const ConfigNode& expected, const nlohmann::json& python,
                        const std::string& path) {
  const std::string where = path.empty() ? "<root>" : path;
  switch (expected.kind()) {
    case ConfigNode::Kind::kNull:
      EXPECT_TRUE(python.is_null()) << where << ": expected null, Python read " << python;
      return;
    case ConfigNode::Kind::kScalar: {
      const nlohmann::json want = tagged_scalar(expected);
      if (want.contains("float") && python.is_object() && python.contains("float")) {
        const double read = std::strtod(python["float"].get<std::string>().c_str(), nullptr);
        EXPECT_TRUE(same_double(read, want["float"].get<double>()))
            << where << ": expected " << want << " (`" << expected.text() << "`), Python read "
            << python;
        return;
      }
      EXPECT_EQ(python, want) << where << ": `" << expected.text() << "`";
      return;
    }
    case ConfigNode::Kind::kSequence:
      if (!python.is_array() || python.size() != expected.size()) {
        ADD_FAILURE() << where << ": expected a list of " << expected.size() << ", Python read "
                      << python;
        return;
      }
      for (size_t i = 0; i < expected.size(); ++i)
        expect_same_values(expected[i], python[i], path + "[" + std::to_string(i) + "]");
      return;
    case ConfigNode::Kind::kMap: {
      if (!python.is_object() || !python.contains("map") ||
          python["map"].size() != expected.size()) {
        ADD_FAILURE() << where << ": expected a mapping of " << expected.size()
                      << " keys, Python read " << python;
        return;
      }
      size_t i = 0;
      for (const auto& [key, value] : expected.entries()) {
        const nlohmann::json& entry = python["map"][i++];
        EXPECT_EQ(entry[0], key) << join(path, key) << ": key order or spelling differs";
        expect_same_values(value, entry[1], join(path, key));
      }
      return;
    }
  }
}

}  // namespace olv2::test
