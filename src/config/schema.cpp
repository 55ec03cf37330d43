#include "olv2/config/schema.h"

#include <algorithm>
#include <sstream>

#include "olv2/util/error.h"

namespace olv2 {

namespace {

const char* type_name(Schema::Type type) {
  switch (type) {
    case Schema::Type::kAny:
      return "any value";
    case Schema::Type::kBool:
      return "true or false";
    case Schema::Type::kInt:
      return "an integer";
    case Schema::Type::kNumber:
      return "a number";
    case Schema::Type::kString:
      return "a string";
    case Schema::Type::kSequence:
      return "a list";
    case Schema::Type::kMap:
      return "a mapping";
  }
  return "a value";
}

std::string describe(const ConfigNode& node) {
  if (node.is_scalar()) return "`" + node.text() + "`";
  return std::string("a ") + node.kind_name();
}

std::string child_path(const ConfigNode& parent, const std::string& key) {
  return parent.path().empty() ? key : parent.path() + "." + key;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

Schema Schema::any() { return Schema(); }

Schema Schema::boolean() {
  Schema schema;
  schema.type_ = Type::kBool;
  return schema;
}

Schema Schema::integer() {
  Schema schema;
  schema.type_ = Type::kInt;
  return schema;
}

Schema Schema::number() {
  Schema schema;
  schema.type_ = Type::kNumber;
  return schema;
}

Schema Schema::string() {
  Schema schema;
  schema.type_ = Type::kString;
  return schema;
}

Schema Schema::sequence(Schema item) {
  Schema schema;
  schema.type_ = Type::kSequence;
  schema.item_ = std::make_shared<Schema>(std::move(item));
  return schema;
}

Schema Schema::sequence() {
  Schema schema;
  schema.type_ = Type::kSequence;
  return schema;
}

Schema Schema::map() {
  Schema schema;
  schema.type_ = Type::kMap;
  return schema;
}

Schema Schema::open_map() {
  Schema schema;
  schema.type_ = Type::kMap;
  schema.open_ = true;
  return schema;
}

Schema Schema::map_of(Schema value) {
  Schema schema;
  schema.type_ = Type::kMap;
  schema.open_ = true;
  schema.item_ = std::make_shared<Schema>(std::move(value));
  return schema;
}

Schema Schema::tagged(std::string tag, std::map<std::string, Schema> variants, std::string family) {
  Schema schema;
  schema.type_ = Type::kMap;
  schema.tag_ = std::move(tag);
  schema.family_ = std::move(family);
  for (auto& [name, variant] : variants) {
    schema.variants_[name] = std::make_shared<Schema>(std::move(variant));
  }
  return schema;
}

Schema Schema::either(Schema first, Schema second) {
  Schema schema;
  schema.alternatives_ = {std::make_shared<Schema>(std::move(first)),
                          std::make_shared<Schema>(std::move(second))};
  return schema;
}

Schema& Schema::optional(const std::string& key, Schema schema) {
  fields_.push_back({key, std::make_shared<Schema>(std::move(schema)), false});
  return *this;
}

Schema& Schema::required(const std::string& key, Schema schema) {
  fields_.push_back({key, std::make_shared<Schema>(std::move(schema)), true});
  return *this;
}

Schema& Schema::nullable() {
  nullable_ = true;
  return *this;
}

Schema& Schema::choices(std::vector<std::string> allowed) {
  choices_ = std::move(allowed);
  return *this;
}

Schema& Schema::allow_infinity() {
  infinity_allowed_ = true;
  return *this;
}

Schema& Schema::range(double low, double high) {
  has_range_ = true;
  low_ = low;
  high_ = high;
  return *this;
}

const Schema* Schema::field(const std::string& key) const {
  for (const Field& field : fields_) {
    if (field.key == key) return field.schema.get();
  }
  return nullptr;
}

std::vector<std::string> Schema::field_names() const {
  std::vector<std::string> names;
  for (const Field& field : fields_) names.push_back(field.key);
  return names;
}

std::vector<std::string> Schema::problems(const ConfigNode& node) const {
  std::vector<Problem> found;
  check(node, found);
  std::vector<std::string> out;
  for (Problem& problem : found) out.push_back(std::move(problem.text));
  return out;
}

Schema::ProblemsByKind Schema::problems_by_kind(const ConfigNode& node) const {
  std::vector<Problem> found;
  check(node, found);
  ProblemsByKind out;
  for (Problem& problem : found) {
    (problem.unknown_key ? out.unknown_keys : out.others).push_back(std::move(problem.text));
  }
  return out;
}

bool Schema::matches(const ConfigNode& node) const {
  std::vector<Problem> out;
  check(node, out);
  return out.empty();
}

void Schema::check(const ConfigNode& node, std::vector<Problem>& out) const {
  if (node.is_null() && (nullable_ || type_ == Type::kAny) && alternatives_.empty()) return;
  if (!alternatives_.empty()) {
    for (const auto& alternative : alternatives_) {
      if (alternative->matches(node)) return;
    }
    if (node.is_null() && nullable_) return;
    // Report the problems of the alternative whose container kind fits the value.
    for (const auto& alternative : alternatives_) {
      const bool kind_fits = (alternative->type_ == Type::kMap && node.is_map()) ||
                             (alternative->type_ == Type::kSequence && node.is_sequence());
      if (kind_fits) {
        alternative->check(node, out);
        return;
      }
    }
    std::string expected;
    for (const auto& alternative : alternatives_) {
      expected += (expected.empty() ? "" : " or ") + std::string(type_name(alternative->type_));
    }
    out.push_back({node.where() + ": expected " + expected + ", got " + describe(node)});
    return;
  }
  bool type_ok = true;
  switch (type_) {
    case Type::kAny:
      break;
    case Type::kBool:
      type_ok = node.is_bool();
      break;
    case Type::kInt:
      type_ok = node.is_int();
      break;
    case Type::kNumber:
      type_ok = node.is_number();
      break;
    case Type::kString:
      type_ok = node.is_scalar();
      break;
    case Type::kSequence:
      type_ok = node.is_sequence();
      break;
    case Type::kMap:
      type_ok = node.is_map();
      break;
  }
  if (!type_ok && type_ == Type::kInt) {
    out.push_back({node.where() + ": " + node.integer_problem()});
    return;
  }
  if (!type_ok) {
    out.push_back({node.where() + ": expected " + type_name(type_) + ", got " + describe(node)});
    return;
  }
  if (type_ == Type::kNumber && !node.is_finite_number() && (!infinity_allowed_ || node.is_nan())) {
    out.push_back({node.where() + ": expected a finite number" +
                   (infinity_allowed_ ? std::string(" or an infinity") : std::string()) + ", got " +
                   describe(node)});
    return;
  }
  if (!choices_.empty() &&
      std::find(choices_.begin(), choices_.end(), node.text()) == choices_.end()) {
    std::string allowed;
    for (const std::string& choice : choices_) allowed += (allowed.empty() ? "" : ", ") + choice;
    std::string message = node.where() + ": `" + node.text() + "` is not one of: " + allowed;
    const std::string suggestion = closest_match(node.text(), choices_);
    if (!suggestion.empty()) message += " (did you mean `" + suggestion + "`?)";
    out.push_back({message});
  }
  if (has_range_ && (node.as_double() < low_ || node.as_double() > high_)) {
    std::ostringstream message;
    message << node.where() << ": " << node.text() << " is outside [" << low_ << ", " << high_
            << "]";
    out.push_back({message.str()});
  }
  if (type_ == Type::kSequence && item_) {
    for (const ConfigNode& element : node.elements()) item_->check(element, out);
  }
  if (type_ == Type::kMap) check_map(node, out);
}

void Schema::check_map(const ConfigNode& node, std::vector<Problem>& out) const {
  if (!tag_.empty()) {
    const ConfigNode* tag = node.find(tag_);
    if (tag == nullptr || !tag->is_scalar()) {
      out.push_back({node.where() + ": missing `" + child_path(node, tag_) + "` naming the kind"});
      return;
    }
    auto variant = variants_.find(tag->text());
    if (variant == variants_.end()) {
      std::vector<std::string> names;
      for (const auto& [name, schema] : variants_) names.push_back(name);
      std::string message = tag->where() + ": unknown " + (family_.empty() ? "" : family_ + " ") +
                            tag_ + " `" + tag->text() + "`";
      const std::string suggestion = closest_match(tag->text(), names);
      if (!suggestion.empty()) message += " (did you mean `" + suggestion + "`?)";
      if (!family_.empty()) {
        std::string known;
        for (const std::string& name : names) known += (known.empty() ? "" : ", ") + name;
        message += "; the " + family_ + " types: " + known;
      }
      out.push_back({message});
      return;
    }
    variant->second->check(node, out);
    return;
  }
  if (open_) {
    if (item_) {
      for (const auto& entry : node.entries()) item_->check(entry.second, out);
    }
    return;
  }
  const std::vector<std::string> names = field_names();
  for (const auto& [key, value] : node.entries()) {
    const Schema* schema = field(key);
    if (schema == nullptr) {
      std::string message =
          value.key_location().to_string() + ": unknown key `" + child_path(node, key) + "`";
      const std::string suggestion = closest_match(key, names);
      if (!suggestion.empty()) message += " (did you mean `" + child_path(node, suggestion) + "`?)";
      out.push_back({message, /*unknown_key=*/true});
      continue;
    }
    schema->check(value, out);
  }
  for (const Field& field : fields_) {
    if (field.required && !node.has(field.key)) {
      out.push_back(
          {node.where() + ": missing required key `" + child_path(node, field.key) + "`"});
    }
  }
}

void validate_config(const ConfigNode& node, const Schema& schema) {
  const std::vector<std::string> problems = schema.problems(node);
  if (problems.empty()) return;
  std::string message = problems.size() == 1
                            ? "invalid config: "
                            : "invalid config (" + std::to_string(problems.size()) + " problems):";
  if (problems.size() == 1) {
    message += problems.front();
  } else {
    for (const std::string& problem : problems) message += "\n  " + problem;
  }
  throw input_error(message);
}

std::string closest_match(const std::string& key, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::string::npos;
  for (const std::string& candidate : candidates) {
    const size_t distance = edit_distance(key, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  const size_t limit = std::max<size_t>(2, key.size() / 3);
  return best_distance <= limit ? best : std::string();
}

}  // namespace olv2
