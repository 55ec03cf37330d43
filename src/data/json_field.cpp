#include "olv2/data/json_field.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <vector>

#include "olv2/util/error.h"

namespace olv2 {
namespace {

using Json = nlohmann::ordered_json;

// Follows the parser through the document and remembers the key path of the first key that
// an object repeats.
class DuplicateKeyFinder {
 public:
  bool on_event(Json::parse_event_t event, const Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start:
        start_value();
        levels_.push_back({event == Json::parse_event_t::object_start, -1, {}, {}});
        break;
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        levels_.pop_back();
        break;
      case Json::parse_event_t::key:
        levels_.back().key = parsed.get<std::string>();
        if (!levels_.back().keys.insert(levels_.back().key).second && !duplicate_)
          duplicate_ = path();
        break;
      case Json::parse_event_t::value:
        start_value();
        break;
    }
    return true;
  }
  const std::optional<std::string>& duplicate() const { return duplicate_; }

 private:
  struct Level {
    bool object = false;
    int64_t index = -1;  // lists: the element being read
    std::string key;     // objects: the member being read
    std::set<std::string> keys;
  };

  void start_value() {
    if (!levels_.empty() && !levels_.back().object) ++levels_.back().index;
  }
  std::string path() const {
    std::string text;
    for (const Level& level : levels_) {
      if (level.object) {
        text += (text.empty() ? "" : ".") + level.key;
      } else if (level.index >= 0) {
        text += "[" + std::to_string(level.index) + "]";
      }
    }
    return text;
  }

  std::vector<Level> levels_;
  std::optional<std::string> duplicate_;
};

std::string describe_parse_error(const std::string& text, const nlohmann::json::exception& e) {
  if (const auto* parse = dynamic_cast<const nlohmann::json::parse_error*>(&e)) {
    const size_t end = std::min(text.size(), parse->byte + 16);
    const size_t begin = parse->byte > 16 ? parse->byte - 16 : 0;
    const std::string around = text.substr(begin, end - begin);
    if (around.find("NaN") != std::string::npos || around.find("Infinity") != std::string::npos) {
      return "non-finite number (NaN/Infinity) near byte " + std::to_string(parse->byte) +
             ", expected a finite number";
    }
  }
  return std::string("malformed JSON: ") + e.what();
}

}  // namespace

Json parse_strict_json(const std::string& text, const std::string& what) {
  DuplicateKeyFinder finder;
  Json root;
  try {
    root = Json::parse(text, [&finder](int, Json::parse_event_t event, Json& parsed) {
      return finder.on_event(event, parsed);
    });
  } catch (const nlohmann::json::exception& e) {
    throw input_error(what + ": " + describe_parse_error(text, e));
  }
  if (finder.duplicate()) {
    throw input_error(what + ": key `" + *finder.duplicate() +
                      "`: written twice, expected each key once");
  }
  return root;
}

void JsonField::fail(const std::string& problem) const {
  throw input_error(what_ + ": key `" + path_ + "`: " + problem);
}

JsonField JsonField::at(const std::string& key) const {
  if (!value_.is_object()) fail("expected an object, got " + type_name());
  const auto it = value_.find(key);
  if (it == value_.end()) fail("missing key `" + key + "`");
  return JsonField(*it, path_.empty() ? key : path_ + "." + key, what_);
}

JsonField JsonField::element(size_t i) const {
  return JsonField(value_.at(i), path_ + "[" + std::to_string(i) + "]", what_);
}

size_t JsonField::list_size() const {
  if (!value_.is_array()) fail("expected a list, got " + type_name());
  return value_.size();
}

double JsonField::number() const {
  if (!value_.is_number()) fail("expected a number, got " + type_name());
  const double v = value_.get<double>();
  if (!std::isfinite(v)) fail("non-finite number, expected a finite number");
  return v;
}

float JsonField::float32() const {
  const double v = number();
  const auto f = static_cast<float>(v);
  if (!std::isfinite(f)) fail(value_.dump() + " overflows float32, expected |x| < 3.4e38");
  return f;
}

int64_t JsonField::integer() const {
  if (!value_.is_number_integer()) fail("expected an integer, got " + type_name());
  return value_.get<int64_t>();
}

std::string JsonField::string() const {
  if (!value_.is_string()) fail("expected a string, got " + type_name());
  return value_.get<std::string>();
}

std::string JsonField::shape_error(size_t rows, size_t cols) {
  if (cols == 0) return "expected a list of " + std::to_string(rows) + " numbers";
  return "expected a " + std::to_string(rows) + "x" + std::to_string(cols) + " matrix of numbers";
}

}  // namespace olv2
