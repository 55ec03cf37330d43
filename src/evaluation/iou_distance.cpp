#include "olv2/evaluation/iou_distance.h"

#include <algorithm>

namespace olv2 {

double iou_distance(const Box& ground_truth, const Box& prediction) {
  const Box& g = ground_truth;
  const Box& p = prediction;
  // float32 throughout, in the official evaluator's order of operations.
  const float width = std::min(p[2], g[2]) - std::max(p[0], g[0]);
  const float height = std::min(p[3], g[3]) - std::max(p[1], g[1]);
  const float intersection = std::max(width, 0.0f) * std::max(height, 0.0f);
  const float area_sum = (p[2] - p[0]) * (p[3] - p[1]) + (g[2] - g[0]) * (g[3] - g[1]);
  const float union_area = area_sum - intersection;
  const float iou = intersection / union_area;  // NaN when both boxes are empty
  return 1.0 - static_cast<double>(iou);
}

DistanceMatrix iou_distance_matrix(const std::vector<Box>& ground_truth,
                                   const std::vector<Box>& predictions) {
  DistanceMatrix distances(ground_truth.size(), predictions.size(), 0.0);
  for (std::size_t i = 0; i < ground_truth.size(); ++i) {
    for (std::size_t j = 0; j < predictions.size(); ++j) {
      distances.at(i, j) = iou_distance(ground_truth[i], predictions[j]);
    }
  }
  return distances;
}

}  // namespace olv2
