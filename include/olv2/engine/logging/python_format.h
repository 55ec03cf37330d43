#pragma once
// Numbers and durations printed exactly as Python 3 prints them, for log lines that must match
// the original trainer's.
#include <cstdint>
#include <string>

namespace olv2 {

// Text exactly as Python 3 prints these values, for log lines that must match
// the original trainer's character for character.

// repr(float): the shortest digits that read back as `value`, fixed notation
// for decimal exponents -4..15 (with ".0" when integral), else scientific
// ("1e-05", "1.5e+16"); "nan", "inf", "-inf".
std::string python_float_repr(double value);

// str(datetime.timedelta(seconds=s)) for whole seconds s >= 0: "0:00:37",
// "9:12:06", "1 day, 0:00:00", "2 days, 9:12:06".
std::string python_timedelta(int64_t seconds);

// f"{value:.{digits}f}" and f"{value:.{digits}e}".
std::string python_fixed(double value, int digits);
std::string python_scientific(double value, int digits);

// round(value, digits) as Python computes it (correctly rounded, ties to even).
double python_round(double value, int digits);

}  // namespace olv2
