#include "olv2/engine/logging/python_format.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace olv2 {

std::string python_float_repr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  // Shortest round-trip digits in scientific form: "-d.ddde±x".
  const auto result =
      std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::scientific);
  const std::string text(buffer, result.ptr);
  const size_t e = text.find('e');
  std::string mantissa = text.substr(0, e);
  const int exponent = std::atoi(text.c_str() + e + 1);
  std::string sign;
  if (!mantissa.empty() && mantissa[0] == '-') {
    sign = "-";
    mantissa.erase(0, 1);
  }
  std::string digits;
  for (const char c : mantissa) {
    if (c != '.') digits.push_back(c);
  }
  if (exponent < -4 || exponent >= 16) {
    std::string out = sign + digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char exponent_text[16];
    std::snprintf(exponent_text, sizeof(exponent_text), "e%c%02d", exponent < 0 ? '-' : '+',
                  std::abs(exponent));
    return out + exponent_text;
  }
  if (exponent < 0) return sign + "0." + std::string(-exponent - 1, '0') + digits;
  const size_t integer_digits = static_cast<size_t>(exponent) + 1;
  if (digits.size() <= integer_digits) {
    return sign + digits + std::string(integer_digits - digits.size(), '0') + ".0";
  }
  return sign + digits.substr(0, integer_digits) + "." + digits.substr(integer_digits);
}

std::string python_timedelta(int64_t seconds) {
  const int64_t days = seconds / 86400;
  const int64_t rest = seconds % 86400;
  char clock[32];
  std::snprintf(clock, sizeof(clock), "%lld:%02lld:%02lld", static_cast<long long>(rest / 3600),
                static_cast<long long>(rest / 60 % 60), static_cast<long long>(rest % 60));
  if (days == 0) return clock;
  return std::to_string(days) + (days == 1 ? " day, " : " days, ") + clock;
}

std::string python_fixed(double value, int digits) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[512];
  std::snprintf(buffer, sizeof(buffer), "%.*f", digits, value);
  return buffer;
}

std::string python_scientific(double value, int digits) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*e", digits, value);
  return buffer;
}

double python_round(double value, int digits) {
  if (!std::isfinite(value)) return value;
  // glibc prints the exact binary value correctly rounded, as Python's round()
  // decides.
  return std::strtod(python_fixed(value, digits).c_str(), nullptr);
}

}  // namespace olv2
