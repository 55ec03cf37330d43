#pragma once
// Wall time elapsed on the steady clock, in seconds, for timings and logs.
#include <chrono>

namespace olv2 {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace olv2
