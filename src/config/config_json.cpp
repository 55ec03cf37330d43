#include "olv2/config/config_json.h"

namespace olv2 {

nlohmann::ordered_json config_to_json(const ConfigNode& node) {
  switch (node.kind()) {
    case ConfigNode::Kind::kNull:
      return nullptr;
    case ConfigNode::Kind::kScalar:
      if (node.is_bool()) return node.as_bool();
      if (node.is_int()) return node.as_int();
      if (node.is_number()) return node.as_double();
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

}  // namespace olv2
