#pragma once
// The synthetic data generator's random draws, the same for a seed with any standard library.
#include <cstdint>
#include <initializer_list>
#include <random>

#include "olv2/util/splitmix64.h"

namespace olv2::synthetic {

// Deterministic random draws for the generator. The engine (mt19937_64) and the
// conversions below are fully specified, so a seed gives the same data with any
// standard library.
class SceneRng {
 public:
  // One independent stream per (seed, stream ids...), e.g. (seed, kSceneStream,
  // segment).
  explicit SceneRng(std::initializer_list<uint64_t> stream) {
    uint64_t state = 0x5EED5EED5EED5EEDull;
    for (uint64_t part : stream) {
      state = splitmix64(state ^ splitmix64(part));
    }
    engine_.seed(state);
  }

  // Uniform in [0, 1) with 53 random bits.
  double unit() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  double uniform(double low, double high) { return low + (high - low) * unit(); }
  // Uniform integer in [low, high].
  int64_t integer(int64_t low, int64_t high) {
    const auto span = static_cast<uint64_t>(high - low) + 1;
    return low + static_cast<int64_t>(engine_() % span);
  }
  bool chance(double probability) { return unit() < probability; }
  uint64_t bits() { return engine_(); }

 private:
  std::mt19937_64 engine_;
};

}  // namespace olv2::synthetic
