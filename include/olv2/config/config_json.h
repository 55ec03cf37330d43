#pragma once
#include <nlohmann/json.hpp>

#include "olv2/config/config_node.h"

namespace olv2 {

// The tree as JSON: plain scalars become booleans, integers or numbers when they read as such,
// quoted ones stay strings; key order is kept.
nlohmann::ordered_json config_to_json(const ConfigNode& node);

}  // namespace olv2
