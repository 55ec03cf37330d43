#pragma once
// The detection metrics the lane-segment task (devkit 2.x) adds to the centerline task's: DET_a
// over areas, and LaneSegNet's own AP of pedestrian crossings.
#include <array>
#include <vector>

#include "olv2/data/frame.h"
#include "olv2/data/frame_prediction.h"
#include "olv2/evaluation/distance_matrix.h"

namespace olv2 {

// Chamfer thresholds of DET_a, in metres.
inline constexpr std::array<double, 3> kAreaThresholds = {0.5, 1.0, 1.5};

// The AP of each kAreaThresholds over a split, for the areas of one `category`: ground-truth areas
// are the rows of distances[f], their categories gt_categories[f]; the predictions' areas of the
// category compete for them by the devkit's greedy matching.
std::array<float, kAreaThresholds.size()> area_aps(
    const std::vector<std::vector<int>>& gt_categories,
    const std::vector<FramePrediction>& predictions, const std::vector<DistanceMatrix>& distances,
    int category);

struct AreaDetectionResult {
  // [category - 1][threshold]
  std::array<std::array<float, kAreaThresholds.size()>, kAreaCategoryNames.size()> ap{};
  float det_a = 0.0f;  // float32 mean of all six
};

// DET_a: area_aps of every category, averaged.
AreaDetectionResult evaluate_area_detection(const std::vector<std::vector<int>>& gt_categories,
                                            const std::vector<FramePrediction>& predictions,
                                            const std::vector<DistanceMatrix>& distances);

}  // namespace olv2
