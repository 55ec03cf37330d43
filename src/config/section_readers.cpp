#include "olv2/config/section_readers.h"

namespace olv2 {

Schema typed_schema(const std::string& type) {
  Schema schema = Schema::map();
  schema.required("type", Schema::string().choices({type}));
  return schema;
}

Schema typed_schema(const std::string& type, const std::vector<std::string>& aliases) {
  std::vector<std::string> names{type};
  names.insert(names.end(), aliases.begin(), aliases.end());
  Schema schema = Schema::map();
  schema.required("type", Schema::string().choices(std::move(names)));
  return schema;
}

Schema numbers_schema() { return Schema::sequence(Schema::number()); }
Schema integers_schema() { return Schema::sequence(Schema::integer()); }
Schema ratio_schema() { return Schema::number().range(0, 1); }

double nested_number(const ConfigNode& section, const std::string& key, const std::string& inner,
                     double fallback) {
  const ConfigNode* node = section.find(key);
  return node == nullptr || node->is_null() ? fallback : node->get<double>(inner, fallback);
}

void require_flag(const ConfigNode& section, const std::string& key, bool supported,
                  const std::string& why) {
  const ConfigNode* node = section.find(key);
  if (node != nullptr && !node->is_null() && node->as_bool() != supported) {
    throw input_error(node->where() + ": only " + key + ": " + (supported ? "true" : "false") +
                      " is supported (" + why + ")");
  }
}

std::vector<const ConfigNode*> maps_of(const ConfigNode& node) {
  std::vector<const ConfigNode*> out;
  if (node.is_map()) {
    out.push_back(&node);
  } else {
    for (const ConfigNode& element : node.elements()) out.push_back(&element);
  }
  return out;
}

}  // namespace olv2
