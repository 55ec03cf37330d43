#pragma once
// A config tree written back as YAML that reads to the same values here and in PyYAML.
#include <string>

#include "olv2/config/config_node.h"

namespace olv2 {

// The tree as YAML that reads back with the same values here and in YAML 1.1 readers (PyYAML's
// yaml.safe_load): integers in decimal; floats in the shortest form that parses back to the same
// double, always with a `.` in the mantissa and a signed exponent (`-50.0`, `1.0e-05`, `.inf`);
// booleans as true/false; strings quoted whenever a YAML 1.1 reader would take them for
// anything else (`"1e-05"`, `"yes"`, `"null"`, `"1_000"`, `"2001-12-14"`).
std::string to_yaml(const ConfigNode& node);

}  // namespace olv2
