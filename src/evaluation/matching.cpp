#include "olv2/evaluation/matching.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "olv2/util/error.h"

namespace olv2 {
namespace {

// Column minimum and the first row attaining it; NaN propagates as in numpy's min/argmin.
void nearest_ground_truth(const DistanceMatrix& distances, std::size_t col, double& best,
                          std::size_t& best_row) {
  best = distances.at(0, col);
  best_row = 0;
  if (std::isnan(best)) return;
  for (std::size_t row = 1; row < distances.rows; ++row) {
    const double value = distances.at(row, col);
    if (std::isnan(value)) {
      best = value;
      best_row = row;
      return;
    }
    if (value < best) {
      best = value;
      best_row = row;
    }
  }
}

}  // namespace

std::vector<std::size_t> order_by_descending_confidence(const std::vector<float>& confidences) {
  std::vector<std::size_t> order(confidences.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return confidences[a] > confidences[b]; });
  return order;
}

FrameMatch greedy_match(const DistanceMatrix& distances, const std::vector<float>& confidences,
                        double threshold) {
  if (distances.cols != confidences.size()) {
    throw runtime_error("greedy_match: " + std::to_string(distances.cols) + " predictions but " +
                        std::to_string(confidences.size()) + " confidences");
  }
  FrameMatch match;
  match.true_positive.assign(distances.cols, 0);
  match.matched_gt.assign(distances.cols, FrameMatch::kUnmatched);
  if (distances.rows == 0) return match;

  std::vector<bool> taken(distances.rows, false);
  for (std::size_t col : order_by_descending_confidence(confidences)) {
    double best = 0.0;
    std::size_t best_row = 0;
    nearest_ground_truth(distances, col, best, best_row);
    if (best < threshold && !taken[best_row]) {
      taken[best_row] = true;
      match.true_positive[col] = 1;
      match.matched_gt[col] = static_cast<int>(best_row);
    }
  }
  return match;
}

}  // namespace olv2
