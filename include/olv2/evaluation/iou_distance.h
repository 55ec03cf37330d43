#pragma once
// Traffic-element box distances of the official evaluator: one minus IoU.
#include <array>
#include <vector>

#include "olv2/evaluation/distance_matrix.h"

namespace olv2 {

// An axis-aligned box x1, y1, x2, y2 in front-image pixels (x1 <= x2, y1 <= y2).
using Box = std::array<float, 4>;

// 1 - IoU of two boxes, without the +1 pixel convention. The quotient is taken in float32 as the
// official evaluator does; the distance is NaN when both boxes have zero area.
double iou_distance(const Box& ground_truth, const Box& prediction);

// IoU distance of every (ground-truth box, predicted box) pair.
DistanceMatrix iou_distance_matrix(const std::vector<Box>& ground_truth,
                                   const std::vector<Box>& predictions);

}  // namespace olv2
