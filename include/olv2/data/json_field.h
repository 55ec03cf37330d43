#pragma once
// Strict reading of input JSON: duplicate keys and non-finite numbers rejected, every error naming
// its key path.
#include <array>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>

namespace olv2 {

// Parses the JSON text of an input file strictly: a key written twice in one object is an input
// error naming its key path (Python's json.load would silently keep the last value), and
// Python's NaN / Infinity literals are reported as non-finite numbers. `what` starts every error
// message ("frame <file>").
nlohmann::ordered_json parse_strict_json(const std::string& text, const std::string& what);

// A value of a JSON document together with its key path ("sensor.ring_front_left.intrinsic.K"),
// so that every error names the file, the key and what was expected:
// "<what>: key `<path>`: expected ...", as an input error (exit status 2).
class JsonField {
 public:
  using Json = nlohmann::ordered_json;

  // `what` must outlive the field and every field derived from it.
  JsonField(const Json& value, std::string path, const std::string& what)
      : value_(value), path_(std::move(path)), what_(what) {}

  const Json& json() const { return value_; }
  const std::string& path() const { return path_; }
  [[noreturn]] void fail(const std::string& problem) const;

  JsonField at(const std::string& key) const;  // a member that must be there
  bool has(const std::string& key) const { return value_.is_object() && value_.contains(key); }
  JsonField element(size_t i) const;
  size_t list_size() const;  // fails unless the value is a list

  double number() const;  // any finite number
  float float32() const;  // a number that is finite as a float32 too
  int64_t integer() const;
  std::string string() const;

  // A rows x cols matrix of finite numbers, row-major; cols 0 reads a list of `rows` numbers.
  template <typename T, size_t N>
  std::array<T, N> matrix(size_t rows, size_t cols) const {
    static_assert(std::is_same_v<T, double> || std::is_same_v<T, float>);
    std::array<T, N> out{};
    if (list_size() != rows) fail(shape_error(rows, cols));
    for (size_t r = 0; r < rows; ++r) {
      const JsonField row = element(r);
      if (cols == 0) {
        out[r] = row.as<T>();
        continue;
      }
      if (!row.json().is_array() || row.json().size() != cols) fail(shape_error(rows, cols));
      for (size_t c = 0; c < cols; ++c) out[r * cols + c] = row.element(c).as<T>();
    }
    return out;
  }

 private:
  template <typename T>
  T as() const {
    if constexpr (std::is_same_v<T, float>) {
      return float32();
    } else {
      return number();
    }
  }
  std::string type_name() const { return value_.type_name(); }
  static std::string shape_error(size_t rows, size_t cols);

  const Json& value_;
  std::string path_;
  const std::string& what_;
};

}  // namespace olv2
