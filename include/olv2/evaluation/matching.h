#pragma once
// The official evaluator's greedy matching of a frame's predictions to its ground truth.
#include <cstdint>
#include <vector>

#include "olv2/evaluation/distance_matrix.h"

namespace olv2 {

// Outcome of matching one frame's predictions to its ground truth at one threshold.
struct FrameMatch {
  static constexpr int kUnmatched = -1;
  std::vector<std::uint8_t> true_positive;  // per prediction; 0 means false positive
  std::vector<int> matched_gt;              // per prediction: ground-truth row, or kUnmatched
};

// The official greedy matching: predictions are visited by descending confidence (a stable
// order: ties keep list order); each is a true positive when its nearest ground truth (first
// row attaining the column minimum) lies strictly within `threshold` and is still free.
// There is no fallback to the second-nearest ground truth. A NaN distance never matches.
// `distances` is [ground truth x predictions]; `confidences` has one entry per column.
FrameMatch greedy_match(const DistanceMatrix& distances, const std::vector<float>& confidences,
                        double threshold);

// Indices 0..n-1 ordered by descending confidence; ties keep their input order.
std::vector<std::size_t> order_by_descending_confidence(const std::vector<float>& confidences);

}  // namespace olv2
