#pragma once
// Config schemas: what each section may hold, checked against the tree with every problem reported
// at once.
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "olv2/config/config_node.h"

namespace olv2 {

// Describes what a config value may be. Each layer declares the schema of its own section;
// validate() checks a tree against it and reports every problem at once.
class Schema {
 public:
  enum class Type { kAny, kBool, kInt, kNumber, kString, kSequence, kMap };

  static Schema any();
  static Schema boolean();
  static Schema integer();
  static Schema number();  // finite; an int is accepted where a number is expected
  static Schema string();
  static Schema sequence(Schema item);  // every element must match `item`
  static Schema sequence();             // elements unchecked
  static Schema map();                  // only the declared fields are allowed
  static Schema open_map();             // any keys, values unchecked (kept as written)
  static Schema map_of(Schema value);   // any keys, every value must match `value`
  // A map selected by the value of its `tag` key (mmcv's `type=`): `variants` maps each tag
  // value to the schema of the whole map (which should declare `tag` itself). With `family`
  // (a registry's), an unknown tag value is named with the family and its known values.
  static Schema tagged(std::string tag, std::map<std::string, Schema> variants,
                       std::string family = "");
  // Either schema: the value must match at least one.
  static Schema either(Schema first, Schema second);

  // Map fields.
  Schema& optional(const std::string& key, Schema schema);
  Schema& required(const std::string& key, Schema schema);
  // The value may also be null (YAML null / Python None).
  Schema& nullable();
  // A string that must be one of `allowed`.
  Schema& choices(std::vector<std::string> allowed);
  // A number that may also be an infinity (`.inf`, `-.inf`); NaN never is.
  Schema& allow_infinity();
  // A number that must lie in [low, high].
  Schema& range(double low, double high);

  Type type() const { return type_; }
  const Schema* field(const std::string& key) const;
  std::vector<std::string> field_names() const;

  // Every problem of `node` against this schema, each "file:line:col: key `path`: message".
  std::vector<std::string> problems(const ConfigNode& node) const;
  // The same, keys this schema does not know apart from the rest, each in order.
  struct ProblemsByKind {
    std::vector<std::string> unknown_keys;
    std::vector<std::string> others;
  };
  ProblemsByKind problems_by_kind(const ConfigNode& node) const;

 private:
  struct Field {
    std::string key;
    std::shared_ptr<Schema> schema;
    bool required = false;
  };
  struct Problem {
    std::string text;
    bool unknown_key = false;
  };
  void check(const ConfigNode& node, std::vector<Problem>& out) const;
  void check_map(const ConfigNode& node, std::vector<Problem>& out) const;
  bool matches(const ConfigNode& node) const;

  Type type_ = Type::kAny;
  bool nullable_ = false;
  bool open_ = false;
  std::vector<Field> fields_;
  std::shared_ptr<Schema> item_;
  std::string tag_;
  std::string family_;  // with `tag_`: the registry family, for messages
  std::map<std::string, std::shared_ptr<Schema>> variants_;
  std::vector<std::shared_ptr<Schema>> alternatives_;
  std::vector<std::string> choices_;
  bool infinity_allowed_ = false;
  bool has_range_ = false;
  double low_ = 0.0;
  double high_ = 0.0;
};

// Throws an input error (exit status 2) listing every problem when `node` does not match.
void validate_config(const ConfigNode& node, const Schema& schema);

// The candidate closest to `key` by edit distance, or "" when none is close enough.
std::string closest_match(const std::string& key, const std::vector<std::string>& candidates);

}  // namespace olv2
