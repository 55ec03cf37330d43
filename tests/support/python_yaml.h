#pragma once
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "olv2/config/config_node.h"
#include "support/test_paths.h"

namespace olv2::test {

// True when Debian's /usr/bin/python3 can import yaml (PyYAML).
bool python_yaml_available();

// What PyYAML's yaml.safe_load makes of a YAML file, as JSON with every value tagged by its
// Python type: null, {"bool": b}, {"int": "<digits>"}, {"float": "<float.hex()>"}, {"str": s},
// [...] for lists and {"map": [[key, value], ...]} for dicts (in file order). Fails the current
// test and returns null when Python fails.
nlohmann::json python_yaml_values(const std::filesystem::path& yaml_file);

// Adds a test failure, naming the key path, for every value of `python` (from
// python_yaml_values) that differs from `expected` in type or value. Floats must be the same
// double, bit for bit.
void expect_same_values(const ConfigNode& expected, const nlohmann::json& python,
                        const std::string& path = "");

}  // namespace olv2::test

// Skips (outside CI) or fails (under CI) the current test when PyYAML is missing.
#define OLV2_REQUIRE_PYTHON_YAML()                                                        \
  if (!::olv2::test::python_yaml_available()) {                                           \
    if (::olv2::test::running_in_ci()) FAIL() << "python3-yaml missing under CI";         \
    GTEST_SKIP() << "/usr/bin/python3 cannot import yaml (apt-get install python3-yaml)"; \
  }
