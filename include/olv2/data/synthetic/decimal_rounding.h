#pragma once
// Rounding synthetic values to the decimals the real OpenLane-V2 files show.
#include <cmath>

namespace olv2::synthetic {

// Rounds to `decimals` places; dividing by an exact power of ten gives the double nearest
// the decimal, so the JSON shows it in as few digits as the real files.
inline double round_to(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

}  // namespace olv2::synthetic
