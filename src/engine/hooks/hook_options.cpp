#include "olv2/engine/hooks/hook_options.h"

#include <map>

#include "olv2/config/section_readers.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

const std::map<std::string, int>& priority_names() {
  static const std::map<std::string, int> names = {
      {"HIGHEST", HookPriority::kHighest}, {"VERY_HIGH", HookPriority::kVeryHigh},
      {"HIGH", HookPriority::kHigh},       {"ABOVE_NORMAL", HookPriority::kAboveNormal},
      {"NORMAL", HookPriority::kNormal},   {"BELOW_NORMAL", HookPriority::kBelowNormal},
      {"LOW", HookPriority::kLow},         {"VERY_LOW", HookPriority::kVeryLow},
      {"LOWEST", HookPriority::kLowest}};
  return names;
}

}  // namespace

Schema hook_schema(const std::string& type, const Schema& keys) {
  std::vector<std::string> names;
  for (const auto& [name, value] : priority_names()) names.push_back(name);
  Schema schema = typed_schema(type);
  schema.optional("priority",
                  Schema::either(Schema::string().choices(names), Schema::integer().range(0, 100)));
  for (const std::string& key : keys.field_names()) schema.optional(key, *keys.field(key));
  return schema;
}

Schema logger_hook_keys() {
  return Schema::map()
      .optional("by_epoch", Schema::boolean())
      .optional("interval", Schema::integer().range(1, 1e9));
}

int read_hook_priority(const ConfigNode& section, int default_priority) {
  const ConfigNode* priority = section.find("priority");
  if (priority == nullptr) return default_priority;
  if (priority->is_int()) return static_cast<int>(priority->as_int());
  const auto named = priority_names().find(priority->as_string());
  if (named == priority_names().end()) {
    throw input_error(priority->where() + ": unknown hook priority `" + priority->as_string() +
                      "` (expected a number 0-100 or HIGHEST ... LOWEST)");
  }
  return named->second;
}

}  // namespace olv2
