#include "olv2/evaluation/average_precision.h"

#include <algorithm>
#include <limits>

namespace olv2 {

void DetectionTally::add_frame(const std::vector<float>& frame_confidences, const FrameMatch& match,
                               std::size_t frame_num_ground_truth) {
  confidences.insert(confidences.end(), frame_confidences.begin(), frame_confidences.end());
  true_positive.insert(true_positive.end(), match.true_positive.begin(), match.true_positive.end());
  num_ground_truth += frame_num_ground_truth;
}

float eleven_point_ap(const std::vector<float>& recalls, const std::vector<float>& precisions) {
  // best_precision[k] = max precision over ranks >= k; recalls never decrease along the ranking,
  // so "recall >= t" selects a suffix of it.
  std::vector<float> best_precision(precisions);
  for (std::size_t k = best_precision.size(); k-- > 1;) {
    best_precision[k - 1] = std::max(best_precision[k - 1], best_precision[k]);
  }
  float sum = 0.0f;
  std::size_t first = 0;
  for (int m = 0; m <= 10; ++m) {
    const float threshold = static_cast<float>(m * 0.1);
    while (first < recalls.size() && !(recalls[first] >= threshold)) ++first;
    if (first < recalls.size()) sum += best_precision[first];
  }
  return sum / 11.0f;
}

float average_precision(const DetectionTally& tally) {
  const std::size_t num_predictions = tally.confidences.size();
  if (num_predictions == 0 && tally.num_ground_truth == 0) return 1.0f;

  const float epsilon = std::numeric_limits<float>::epsilon();
  const float num_ground_truth = std::max(static_cast<float>(tally.num_ground_truth), epsilon);
  std::vector<float> recalls;
  std::vector<float> precisions;
  recalls.reserve(num_predictions);
  precisions.reserve(num_predictions);
  float cumulative_tp = 0.0f;
  float cumulative_fp = 0.0f;
  for (std::size_t index : order_by_descending_confidence(tally.confidences)) {
    if (tally.true_positive[index]) {
      cumulative_tp += 1.0f;
    } else {
      cumulative_fp += 1.0f;
    }
    recalls.push_back(cumulative_tp / num_ground_truth);
    precisions.push_back(cumulative_tp / std::max(cumulative_tp + cumulative_fp, epsilon));
  }
  return eleven_point_ap(recalls, precisions);
}

}  // namespace olv2
