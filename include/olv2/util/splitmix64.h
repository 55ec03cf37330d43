#pragma once
// SplitMix64, the one hash the project derives every seed from.
#include <cstdint>

namespace olv2 {

// SplitMix64 (Steele, Lea and Flood, 2014): the stream from `seed` is
// splitmix64_finalize(seed + (i + 1) * kSplitMix64Increment); its finaliser spreads nearby
// integers (seeds, epochs, indices) over the whole 64-bit range. Every hash of seeds in the
// project is this one.
inline constexpr uint64_t kSplitMix64Increment = 0x9E3779B97F4A7C15ULL;

inline constexpr uint64_t splitmix64_finalize(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// The next number of the stream whose state is `x`.
inline constexpr uint64_t splitmix64(uint64_t x) {
  return splitmix64_finalize(x + kSplitMix64Increment);
}

}  // namespace olv2
