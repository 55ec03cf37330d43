#pragma once
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/util/error.h"

namespace olv2 {

// The model parts of one family (backbones, necks, detectors) by their config `type`, as mmcv's
// registries: each type has its options' schema and reader, and its options build the module.
// `FamilyOptions` is the family's options interface; a part's options struct derives from it and
// declares `static Schema schema()` and `static Options from_config(const ConfigNode&)`.
template <typename FamilyOptions>
class PartRegistry {
 public:
  struct PartType {
    Schema schema;
    std::shared_ptr<const FamilyOptions> (*read)(const ConfigNode& section);
  };

  // The registration of the part whose options struct is `Options`.
  template <typename Options>
  static PartType part() {
    return {Options::schema(),
            [](const ConfigNode& section) -> std::shared_ptr<const FamilyOptions> {
              return std::make_shared<const Options>(Options::from_config(section));
            }};
  }

  PartRegistry(std::string family, std::map<std::string, PartType> types)
      : family_(std::move(family)), types_(std::move(types)) {}

  // A section of any registered type, chosen by its `type` key.
  Schema schema() const {
    std::map<std::string, Schema> variants;
    for (const auto& [name, type] : types_) variants.emplace(name, type.schema);
    return Schema::tagged("type", std::move(variants));
  }

  // The options of the part `section.type` names; an unknown type is an input error naming the
  // known ones.
  std::shared_ptr<const FamilyOptions> read(const ConfigNode& section) const {
    const ConfigNode& type = section.at("type");
    const auto found = types_.find(type.as_string());
    if (found == types_.end()) {
      throw input_error(type.where() + ": unknown " + family_ + " type `" + type.as_string() +
                        "` (expected one of: " + known_types() + ")");
    }
    return found->second.read(section);
  }

  std::vector<std::string> types() const {
    std::vector<std::string> names;
    for (const auto& [name, type] : types_) names.push_back(name);
    return names;
  }

 private:
  std::string known_types() const {
    std::string known;
    for (const auto& [name, type] : types_) known += (known.empty() ? "" : ", ") + name;
    return known;
  }

  std::string family_;
  std::map<std::string, PartType> types_;
};

}  // namespace olv2
