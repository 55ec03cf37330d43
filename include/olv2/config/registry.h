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

namespace registry_detail {

// Whether `Options::from_config(section, scope)` exists.
template <typename Options, typename = void>
struct reads_in_scope : std::false_type {};
template <typename Options>
struct reads_in_scope<Options,
                      std::void_t<decltype(Options::from_config(
                          std::declval<const ConfigNode&>(), std::declval<const std::string&>()))>>
    : std::true_type {};

}  // namespace registry_detail

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
    std::shared_ptr<const FamilyOptions> (*read)(const ConfigNode& section,
                                                 const std::string& scope);
  };

  // The registration of the component whose options struct is `Options`. A family whose
  // members are built straight from their section (transforms) registers types whose
  // `from_config` returns the `std::shared_ptr<const FamilyOptions>` itself. An `Options` whose
  // parts are read by `type` too takes the scope on: `from_config(section, scope)`.
  template <typename Options>
  static Entry entry() {
    return {Options::schema(),
            [](const ConfigNode& section,
               const std::string& scope) -> std::shared_ptr<const FamilyOptions> {
              const auto read = [&] {
                if constexpr (registry_detail::reads_in_scope<Options>::value) {
                  return Options::from_config(section, scope);
                } else {
                  return Options::from_config(section);
                }
              };
              using Read = decltype(read());
              if constexpr (std::is_convertible_v<Read, std::shared_ptr<const FamilyOptions>>) {
                return read();
              } else {
                return std::make_shared<const Options>(read());
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
  // naming the known ones. `scope` is the registry scope the section is read in, as mmengine's:
  // a type registered as `<scope>.<type>` (the copy of a component that one project changed,
  // such as TopoNet's `toponet.TemporalSelfAttention`) is what `<type>` names in that scope; a
  // tag written `<scope>.<type>` names it anywhere.
  std::shared_ptr<const FamilyOptions> read(const ConfigNode& section,
                                            const std::string& scope = "") const {
    const ConfigNode& type = section.at(tag_);
    auto found = types_.end();
    if (!scope.empty()) found = types_.find(scope + "." + type.as_string());
    if (found == types_.end()) found = types_.find(type.as_string());
    if (found == types_.end()) {
      throw input_error(type.where() + ": unknown " + family_ + " " + tag_ + " `" +
                        type.as_string() + "` (expected one of: " + known_types() + ")");
    }
    return found->second.read(section, scope);
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
