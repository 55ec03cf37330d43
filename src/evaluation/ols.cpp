#include "olv2/evaluation/ols.h"

#include <cmath>

namespace olv2 {
namespace {

// sqrt in the precision the TOP value has in the original.
double top_term(const TopologyScore& top) {
  return top.is_float32 ? static_cast<double>(std::sqrt(static_cast<float>(top.value)))
                        : std::sqrt(top.value);
}

}  // namespace

double openlane_v2_score(float det_l, float det_t, const TopologyScore& top_ll,
                         const TopologyScore& top_lt) {
  if (top_ll.is_float32 && top_lt.is_float32) {
    const float sum = ((det_l + det_t) + static_cast<float>(top_term(top_ll))) +
                      static_cast<float>(top_term(top_lt));
    return static_cast<double>(sum / 4.0f);
  }
  const double sum =
      ((static_cast<double>(det_l) + static_cast<double>(det_t)) + top_term(top_ll)) +
      top_term(top_lt);
  return sum / 4.0;
}

}  // namespace olv2
