#pragma once
// Mathematical constants the standard library lacks before C++20.

namespace olv2 {

// π to double precision. M_PI is not standard C++ (MSVC needs _USE_MATH_DEFINES, MinGW in strict
// mode hides it), and std::numbers arrives only with C++20.
inline constexpr double kPi = 3.14159265358979323846264338327950288;

}  // namespace olv2
