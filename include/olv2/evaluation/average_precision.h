#pragma once
// Average precision as the official OpenLane-V2 evaluator computes it, over a dataset's matches.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "olv2/evaluation/matching.h"

namespace olv2 {

// The predictions of a whole dataset for one object type, filter and threshold, concatenated in
// frame order, with the number of ground-truth objects they compete for.
struct DetectionTally {
  std::vector<float> confidences;
  std::vector<std::uint8_t> true_positive;
  std::size_t num_ground_truth = 0;

  void add_frame(const std::vector<float>& frame_confidences, const FrameMatch& match,
                 std::size_t frame_num_ground_truth);
};

// 11-point interpolated AP: the mean over t = 0, 0.1, ..., 1 of the best precision at recall >= t
// (0 when none). Recalls are compared with float32(t) in float32 and the sum is accumulated in
// float32, as the official evaluator does: a recall of exactly 0.3 then reaches t = 0.3.
float eleven_point_ap(const std::vector<float>& recalls, const std::vector<float>& precisions);

// AP of a tally: 1 when there are neither predictions nor ground truth; otherwise predictions
// are ranked by descending confidence (stable) and recall/precision computed in float32.
float average_precision(const DetectionTally& tally);

}  // namespace olv2
