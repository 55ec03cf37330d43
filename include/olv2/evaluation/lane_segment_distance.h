#pragma once
// Distances of the OpenLane-V2 lane-segment task (devkit 2.x): between lane segments and between
// areas.
#include <vector>

#include "olv2/data/frame_prediction.h"
#include "olv2/evaluation/distance_matrix.h"
#include "olv2/evaluation/ground_truth.h"

namespace olv2 {

// What the devkit writes for a pair it does not measure.
inline constexpr double kUnmeasuredDistance = 1024.0;

// The distance of every (ground-truth lane segment, predicted lane segment) pair of a v2.x frame:
// half the sum of the Fréchet distance of the centerlines and the Chamfer distances of the left
// and of the right boundaries, times the ground truth's relaxation (lane_relaxation_factor).
// Only pairs whose relaxed centerline Chamfer distance is below `max_threshold` are measured;
// the others hold kUnmeasuredDistance, as the devkit's mask leaves them, even where the full
// distance would be smaller.
DistanceMatrix lane_segment_distance_matrix(const FrameGroundTruth& ground_truth,
                                            const FramePrediction& prediction,
                                            double max_threshold);

// The Chamfer distance of every (ground-truth area, predicted area) pair.
DistanceMatrix area_distance_matrix(const std::vector<Polyline>& ground_truth,
                                    const std::vector<AreaPrediction>& predictions);

}  // namespace olv2
