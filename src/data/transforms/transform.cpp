#include "olv2/data/transforms/transform.h"

#include "olv2/util/splitmix64.h"

namespace olv2 {

std::mt19937_64 make_sample_rng(uint64_t seed, int64_t epoch, int64_t sample_index) {
  uint64_t h = splitmix64(seed);
  h = splitmix64(h ^ static_cast<uint64_t>(epoch));
  h = splitmix64(h ^ static_cast<uint64_t>(sample_index));
  return std::mt19937_64(h);
}

double draw_uniform(std::mt19937_64& rng, double low, double high) {
  const double unit = static_cast<double>(rng() >> 11) * 0x1.0p-53;
  return low + (high - low) * unit;
}

bool draw_coin(std::mt19937_64& rng) { return (rng() >> 63) != 0; }

int draw_index(std::mt19937_64& rng, int n) {
  return static_cast<int>(rng() % static_cast<uint64_t>(n));
}

}  // namespace olv2
