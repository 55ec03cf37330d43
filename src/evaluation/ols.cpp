#include "olv2/evaluation/ols.h"

#include <cmath>
#include <vector>

namespace olv2 {
namespace {

// sqrt in the precision the TOP value has in the original.
double top_term(const TopologyScore& top) {
  return top.is_float32 ? static_cast<double>(std::sqrt(static_cast<float>(top.value)))
                        : std::sqrt(top.value);
}

// The mean of the detection metrics and the square roots of the TOP values, summed left to
// right as numpy sums a short array: in float32 when both TOP values are float32, else double.
double mean_with_topology(const std::vector<float>& detections, const TopologyScore& top_ll,
                          const TopologyScore& top_lt) {
  const auto count = static_cast<double>(detections.size() + 2);
  if (top_ll.is_float32 && top_lt.is_float32) {
    float sum = 0.0f;
    for (const float value : detections) sum += value;
    sum = (sum + static_cast<float>(top_term(top_ll))) + static_cast<float>(top_term(top_lt));
    return static_cast<double>(sum / static_cast<float>(count));
  }
  double sum = 0.0;
  for (const float value : detections) sum += static_cast<double>(value);
  sum = (sum + top_term(top_ll)) + top_term(top_lt);
  return sum / count;
}

}  // namespace

double openlane_v2_score(float det_l, float det_t, const TopologyScore& top_ll,
                         const TopologyScore& top_lt) {
  return mean_with_topology({det_l, det_t}, top_ll, top_lt);
}

double openlane_v2_uniscore(float det_l, float det_a, float det_t, const TopologyScore& top_ll,
                            const TopologyScore& top_lt) {
  return mean_with_topology({det_l, det_a, det_t}, top_ll, top_lt);
}

}  // namespace olv2
