#include "olv2/config/config_json.h"

namespace olv2 {

nlohmann::ordered_json config_to_json(const ConfigNode& node) {
  switch (node.kind()) {
    case ConfigNode::Kind::kNull:
      return nullptr;
    case ConfigNode::Kind::kScalar:
      if (node.is_bool()) return node.as_bool();
      if (node.is_int()) return node.as_int();
      if (node.is_number()) return node.as_written_double();
      return node.text();
    case ConfigNode::Kind::kSequence: {
      nlohmann::ordered_json array = nlohmann::ordered_json::array();
      for (const ConfigNode& element : node.elements()) array.push_back(config_to_json(element));
      return array;
    }
    case ConfigNode::Kind::kMap: {
      nlohmann::ordered_json object = nlohmann::ordered_json::object();
      for (const auto& [key, value] : node.entries()) object[key] = config_to_json(value);
      return object;
    }
  }
  return nullptr;
}

namespace {

ConfigNode node_from_json(const nlohmann::json& value, const SourceLocation& location) {
  if (value.is_null()) return ConfigNode::null(location);
  if (value.is_string()) return ConfigNode::scalar(value.get<std::string>(), location, true);
  if (value.is_array()) {
    ConfigNode sequence = ConfigNode::sequence(location);
    for (const nlohmann::json& element : value)
      sequence.push_back(node_from_json(element, location));
    return sequence;
  }
  if (value.is_object()) {
    ConfigNode map = ConfigNode::map(location);
    for (const auto& item : value.items())
      map.set(item.key(), node_from_json(item.value(), location));
    return map;
  }
  return ConfigNode::scalar(value.dump(), location);
}

}  // namespace

ConfigNode config_from_json(const nlohmann::json& value, const SourceLocation& location,
                            const std::string& path) {
  ConfigNode node = node_from_json(value, location);
  node.assign_paths(path);
  return node;
}

}  // namespace olv2
