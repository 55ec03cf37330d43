#pragma once
// Shared pieces of the schemas and readers of mmcv-style config sections.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/util/error.h"

namespace olv2 {

// Building blocks of the schemas and readers of mmcv-style sections (`type: Name` plus keys);
// every error names the file, line and key.

// A map whose `type` must be `type`; the caller declares the other keys.
Schema typed_schema(const std::string& type);
// The same, also accepting `aliases`: other projects' names of the same component.
Schema typed_schema(const std::string& type, const std::vector<std::string>& aliases);
Schema numbers_schema();
Schema integers_schema();
// A number in [0, 1] (a dropout probability).
Schema ratio_schema();

// Exactly N numbers.
template <size_t N>
std::array<double, N> fixed_numbers(const ConfigNode& node) {
  const std::vector<double> values = node.as_vector<double>();
  if (values.size() != N) {
    throw input_error(node.where() + ": expected " + std::to_string(N) + " numbers, got " +
                      std::to_string(values.size()));
  }
  std::array<double, N> out{};
  std::copy(values.begin(), values.end(), out.begin());
  return out;
}

// section[key][inner], or `fallback` when either is absent or null.
double nested_number(const ConfigNode& section, const std::string& key, const std::string& inner,
                     double fallback);

// Throws an input error naming the key unless `section[key]` is absent, null or `supported`; `why`
// says why only that value is.
void require_flag(const ConfigNode& section, const std::string& key, bool supported,
                  const std::string& why);

// The maps of a value the original accepts as one dict or as a list of dicts.
std::vector<const ConfigNode*> maps_of(const ConfigNode& node);

}  // namespace olv2
