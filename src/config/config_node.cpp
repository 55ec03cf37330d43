#include "olv2/config/config_node.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "olv2/util/error.h"

namespace olv2 {

namespace {

enum class IntParse { kInt, kOutOfRange, kNotAnInt };

IntParse parse_int(const std::string& text, int64_t& value) {
  if (text.empty()) return IntParse::kNotAnInt;
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const long long parsed = std::strtoll(begin, &end, hex ? 16 : 10);
  if (end != begin + text.size() || end == begin) return IntParse::kNotAnInt;
  if (errno == ERANGE) return IntParse::kOutOfRange;
  value = parsed;
  return IntParse::kInt;
}

bool parse_double(const std::string& text, double& value) {
  if (text == ".inf" || text == ".Inf" || text == ".INF" || text == "+.inf") {
    value = INFINITY;
    return true;
  }
  if (text == "-.inf" || text == "-.Inf" || text == "-.INF") {
    value = -INFINITY;
    return true;
  }
  if (text == ".nan" || text == ".NaN" || text == ".NAN") {
    value = NAN;
    return true;
  }
  if (text.empty() || text.find_first_of("0123456789") == std::string::npos) return false;
  if (text.find_first_not_of("0123456789+-.eE") != std::string::npos) return false;
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  const double parsed = std::strtod(begin, &end);
  // Underflow (subnormals, 1e-400 -> 0) still is a number, as in YAML readers; overflow is not.
  if ((errno == ERANGE && std::isinf(parsed)) || end != begin + text.size()) return false;
  value = parsed;
  return true;
}

}  // namespace

std::string SourceLocation::to_string() const {
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

ConfigNode ConfigNode::null(SourceLocation location) {
  ConfigNode node;
  node.location_ = std::move(location);
  return node;
}

ConfigNode ConfigNode::scalar(std::string text, SourceLocation location, bool quoted) {
  ConfigNode node;
  node.kind_ = Kind::kScalar;
  node.text_ = std::move(text);
  node.quoted_ = quoted;
  node.location_ = std::move(location);
  return node;
}

ConfigNode ConfigNode::sequence(SourceLocation location) {
  ConfigNode node;
  node.kind_ = Kind::kSequence;
  node.location_ = std::move(location);
  return node;
}

ConfigNode ConfigNode::map(SourceLocation location) {
  ConfigNode node;
  node.kind_ = Kind::kMap;
  node.location_ = std::move(location);
  return node;
}

const char* ConfigNode::kind_name() const {
  switch (kind_) {
    case Kind::kNull:
      return "null";
    case Kind::kScalar:
      return "scalar";
    case Kind::kSequence:
      return "list";
    case Kind::kMap:
      return "mapping";
  }
  return "value";
}

std::string ConfigNode::where() const {
  std::string prefix = location_.to_string();
  if (prefix.empty()) prefix = "<config>";
  return prefix + ": key `" + (path_.empty() ? std::string("<root>") : path_) + "`";
}

const ConfigNode* ConfigNode::find(const std::string& key) const {
  if (kind_ != Kind::kMap) return nullptr;
  for (const Entry& entry : entries_) {
    if (entry.first == key) return &entry.second;
  }
  return nullptr;
}

ConfigNode* ConfigNode::find(const std::string& key) {
  return const_cast<ConfigNode*>(static_cast<const ConfigNode&>(*this).find(key));
}

const ConfigNode& ConfigNode::at(const std::string& key) const {
  require_kind(Kind::kMap);
  const ConfigNode* child = find(key);
  if (child == nullptr) {
    const std::string full = path_.empty() ? key : path_ + "." + key;
    throw input_error(location_.to_string() + ": missing required key `" + full + "`");
  }
  return *child;
}

void ConfigNode::set(const std::string& key, ConfigNode value) {
  if (kind_ != Kind::kMap) {
    SourceLocation keep = location_;
    *this = map(std::move(keep));
  }
  if (ConfigNode* existing = find(key)) {
    *existing = std::move(value);
    return;
  }
  entries_.emplace_back(key, std::move(value));
}

bool ConfigNode::erase(const std::string& key) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->first == key) {
      entries_.erase(it);
      return true;
    }
  }
  return false;
}

void ConfigNode::require_kind(Kind kind) const {
  if (kind_ == kind) return;
  ConfigNode expected;
  expected.kind_ = kind;
  throw input_error(where() + ": expected a " + expected.kind_name() + ", got " +
                    (is_scalar() ? "`" + text_ + "`" : std::string("a ") + kind_name()));
}

bool ConfigNode::is_bool() const {
  return is_scalar() && !quoted_ &&
         (text_ == "true" || text_ == "false" || text_ == "True" || text_ == "False" ||
          text_ == "TRUE" || text_ == "FALSE");
}

bool ConfigNode::is_int() const {
  int64_t value = 0;
  return is_scalar() && !quoted_ && parse_int(text_, value) == IntParse::kInt;
}

bool ConfigNode::is_number() const {
  double value = 0;
  return is_scalar() && !quoted_ && parse_double(text_, value);
}

bool ConfigNode::is_finite_number() const {
  double value = 0;
  return is_scalar() && !quoted_ && parse_double(text_, value) && std::isfinite(value);
}

bool ConfigNode::is_nan() const {
  double value = 0;
  return is_scalar() && !quoted_ && parse_double(text_, value) && std::isnan(value);
}

std::string ConfigNode::integer_problem() const {
  int64_t value = 0;
  const IntParse parse = is_scalar() && !quoted_ ? parse_int(text_, value) : IntParse::kNotAnInt;
  if (parse == IntParse::kInt) return "";
  if (parse == IntParse::kOutOfRange) {
    return "`" + text_ + "` is out of range of a 64-bit integer (at most " +
           std::to_string(std::numeric_limits<int64_t>::max()) + ")";
  }
  return "expected an integer, got " +
         (is_scalar() ? "`" + text_ + "`" : std::string("a ") + kind_name());
}

bool ConfigNode::as_bool() const {
  if (!is_bool())
    throw input_error(where() + ": expected true or false, got " +
                      (is_scalar() ? "`" + text_ + "`" : std::string("a ") + kind_name()));
  return text_[0] == 't' || text_[0] == 'T';
}

int64_t ConfigNode::as_int() const {
  int64_t value = 0;
  if (is_scalar() && !quoted_ && parse_int(text_, value) == IntParse::kInt) return value;
  throw input_error(where() + ": " + integer_problem());
}

int ConfigNode::as_int32() const {
  const int64_t value = as_int();
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
    throw input_error(where() + ": `" + text_ + "` is out of range of this key's integer type (" +
                      std::to_string(std::numeric_limits<int>::min()) + " to " +
                      std::to_string(std::numeric_limits<int>::max()) + ")");
  }
  return static_cast<int>(value);
}

double ConfigNode::as_written_double() const {
  double value = 0;
  if (!is_scalar() || quoted_ || !parse_double(text_, value)) {
    throw input_error(where() + ": expected a number, got " +
                      (is_scalar() ? "`" + text_ + "`" : std::string("a ") + kind_name()));
  }
  return value;
}

double ConfigNode::as_double() const {
  const double value = as_written_double();
  if (std::isnan(value)) throw input_error(where() + ": expected a number, got `" + text_ + "`");
  return value;
}

float ConfigNode::as_float() const {
  const double value = as_double();
  if (std::isfinite(value) && std::fabs(value) > std::numeric_limits<float>::max()) {
    throw input_error(where() + ": `" + text_ + "` is out of range of this key's type (a 32-bit " +
                      "float, at most " + std::to_string(std::numeric_limits<float>::max()) + ")");
  }
  return static_cast<float>(value);
}

const std::string& ConfigNode::as_string() const {
  if (!is_scalar()) {
    throw input_error(where() + ": expected a string, got a " + kind_name());
  }
  return text_;
}

void ConfigNode::relocate(const SourceLocation& location) {
  location_ = location;
  key_location_ = location;
  for (Entry& entry : entries_) entry.second.relocate(location);
  for (ConfigNode& element : elements_) element.relocate(location);
}

void ConfigNode::assign_paths(const std::string& path) {
  path_ = path;
  for (Entry& entry : entries_) {
    entry.second.assign_paths(path.empty() ? entry.first : path + "." + entry.first);
  }
  for (size_t i = 0; i < elements_.size(); ++i) {
    elements_[i].assign_paths(path + "[" + std::to_string(i) + "]");
  }
}

}  // namespace olv2
