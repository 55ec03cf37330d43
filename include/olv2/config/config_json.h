#pragma once
// Config trees to and from JSON: a config written as JSON, and JSON sections (a DeepSpeed
// JSON's) read through the YAML config's schemas and readers.
#include <nlohmann/json.hpp>
#include <string>

#include "olv2/config/config_node.h"

namespace olv2 {

// The tree as JSON: plain scalars become booleans, integers or numbers when they read as such,
// quoted ones stay strings; key order is kept.
nlohmann::ordered_json config_to_json(const ConfigNode& node);

// A JSON value as a tree whose nodes all carry `location` (JSON gives no line numbers), with
// key paths under `path`: strings become quoted scalars, so a schema tells "true" from true.
ConfigNode config_from_json(const nlohmann::json& value, const SourceLocation& location,
                            const std::string& path);

}  // namespace olv2
