#pragma once
// The config tree: YAML values that remember the file:line:col and key path they were written at.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace olv2 {

// Where a config value was written.
struct SourceLocation {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown (e.g. a value given on the command line)
  int column = 0;  // 1-based
  std::string to_string() const;  // "file:line:col"
};

// A YAML tree that remembers, for every value, the file:line:col it came from and its full key
// path ("data.train.pipeline[2].type"). Maps keep the order in which keys were written.
class ConfigNode {
 public:
  enum class Kind { kNull, kScalar, kSequence, kMap };
  using Entry = std::pair<std::string, ConfigNode>;

  ConfigNode() = default;  // null
  static ConfigNode null(SourceLocation location);
  static ConfigNode scalar(std::string text, SourceLocation location, bool quoted = false);
  static ConfigNode sequence(SourceLocation location);
  static ConfigNode map(SourceLocation location);

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_scalar() const { return kind_ == Kind::kScalar; }
  bool is_sequence() const { return kind_ == Kind::kSequence; }
  bool is_map() const { return kind_ == Kind::kMap; }
  const char* kind_name() const;

  const SourceLocation& location() const { return location_; }
  // Where this value's key was written (its own location when it has no key or none is known).
  const SourceLocation& key_location() const {
    return key_location_.file.empty() ? location_ : key_location_;
  }
  void set_key_location(SourceLocation location) { key_location_ = std::move(location); }
  // Gives every value of this subtree the location `location` (values from the command line).
  void relocate(const SourceLocation& location);
  const std::string& path() const { return path_; }  // "" for the root
  // "file:line:col: key `a.b.c`": the prefix of every error about this value.
  std::string where() const;

  // Maps. at() throws an input error naming the map's location and the missing key.
  bool has(const std::string& key) const { return find(key) != nullptr; }
  const ConfigNode* find(const std::string& key) const;
  ConfigNode* find(const std::string& key);
  const ConfigNode& at(const std::string& key) const;
  const std::vector<Entry>& entries() const { return entries_; }
  void set(const std::string& key, ConfigNode value);  // replaces in place or appends
  bool erase(const std::string& key);

  // Sequences.
  size_t size() const { return kind_ == Kind::kMap ? entries_.size() : elements_.size(); }
  const ConfigNode& operator[](size_t index) const { return elements_.at(index); }
  const std::vector<ConfigNode>& elements() const { return elements_; }
  void push_back(ConfigNode value) { elements_.push_back(std::move(value)); }

  // Scalars. Each conversion checks the type and throws an input error naming where() and
  // what was expected. A quoted scalar is always a string.
  const std::string& text() const { return text_; }
  bool quoted() const { return quoted_; }
  bool is_bool() const;
  bool is_int() const;
  bool is_number() const;  // int or float, infinities and NaN included
  bool is_finite_number() const;
  bool is_nan() const;
  // "" when this is an integer that fits 64 bits, else what is wrong, worded for an error.
  std::string integer_problem() const;
  bool as_bool() const;
  int64_t as_int() const;
  int as_int32() const;      // refuses what does not fit
  double as_double() const;  // refuses NaN; infinities pass (schemas refuse them by default)
  double as_written_double() const;  // NaN too: for what writes the config back out
  float as_float() const;            // refuses finite numbers past a float's range
  const std::string& as_string() const;
  template <typename T>
  T as() const;
  template <typename T>
  std::vector<T> as_vector() const;

  // The value at `key` converted to T, or `fallback` when the key is absent or null.
  template <typename T>
  T get(const std::string& key, const T& fallback) const {
    const ConfigNode* child = find(key);
    return (child == nullptr || child->is_null()) ? fallback : child->as<T>();
  }

  // Throws an input error naming where() unless this node is of `kind`.
  void require_kind(Kind kind) const;

  // Recomputes the key paths of this subtree, with `path` as this node's own.
  void assign_paths(const std::string& path = "");

 private:
  Kind kind_ = Kind::kNull;
  SourceLocation location_;
  SourceLocation key_location_;
  std::string path_;
  std::string text_;
  bool quoted_ = false;
  std::vector<Entry> entries_;
  std::vector<ConfigNode> elements_;
};

template <>
inline bool ConfigNode::as<bool>() const {
  return as_bool();
}
template <>
inline int64_t ConfigNode::as<int64_t>() const {
  return as_int();
}
template <>
inline int ConfigNode::as<int>() const {
  return as_int32();
}
template <>
inline double ConfigNode::as<double>() const {
  return as_double();
}
template <>
inline float ConfigNode::as<float>() const {
  return as_float();
}
template <>
inline std::string ConfigNode::as<std::string>() const {
  return as_string();
}

template <typename T>
std::vector<T> ConfigNode::as_vector() const {
  require_kind(Kind::kSequence);
  std::vector<T> values;
  values.reserve(elements_.size());
  for (const ConfigNode& element : elements_) values.push_back(element.as<T>());
  return values;
}

}  // namespace olv2
