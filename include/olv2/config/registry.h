#pragma once
// The registries of components by config `type`, as mmcv's: each type's schema, reader and builder.
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/util/error.h"

namespace olv2 {

// The components of one family (backbones, necks, detectors, hooks, ...) by their config `type`,
// as mmcv's registries: each type has its options' schema and reader, and its options build the
// component. `FamilyOptions` is the family's options interface; a component's options struct
// derives from it and declares `static Schema schema()` and
// `static Options from_config(const ConfigNode&)`.
template <typename FamilyOptions>
class Registry {
 public:
  struct Entry {
    Schema schema;
    std::shared_ptr<const FamilyOptions> (*read)(const ConfigNode& section);
  };

  // The registration of the component whose options struct is `Options`. A family whose
  // members are built straight from their section (transforms) registers types whose
  // `from_config` returns the `std::shared_ptr<const FamilyOptions>` itself.
  template <typename Options>
  static Entry entry() {
    return {Options::schema(),
            [](const ConfigNode& section) -> std::shared_ptr<const FamilyOptions> {
              using Read = decltype(Options::from_config(section));
              if constexpr (std::is_convertible_v<Read, std::shared_ptr<const FamilyOptions>>) {
                return Options::from_config(section);
              } else {
                return std::make_shared<const Options>(Options::from_config(section));
              }
            }};
  }

  // `tag`: the key naming the type (mmcv's `type`; `policy` for LR schedules).
  Registry(std::string family, std::map<std::string, Entry> types, std::string tag = "type")
      : family_(std::move(family)), types_(std::move(types)), tag_(std::move(tag)) {}

  // A section of any registered type, chosen by its tag.
  Schema schema() const {
    std::map<std::string, Schema> variants;
    for (const auto& [name, type] : types_) variants.emplace(name, type.schema);
    return Schema::tagged(tag_, std::move(variants), family_);
  }

  // The options of the component the section's tag names; an unknown type is an input error
  // naming the known ones.
  std::shared_ptr<const FamilyOptions> read(const ConfigNode& section) const {
    const ConfigNode& type = section.at(tag_);
    const auto found = types_.find(type.as_string());
    if (found == types_.end()) {
      throw input_error(type.where() + ": unknown " + family_ + " " + tag_ + " `" +
                        type.as_string() + "` (expected one of: " + known_types() + ")");
    }
    return found->second.read(section);
  }

  // The schema of the type registered as `name`, or null when there is none.
  const Schema* type_schema(const std::string& name) const {
    const auto found = types_.find(name);
    return found == types_.end() ? nullptr : &found->second.schema;
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
  std::map<std::string, Entry> types_;
  std::string tag_;
};

}  // namespace olv2
