#pragma once
// Lane distances of the official evaluator: the discrete Fréchet distance, relaxed with range.
#include <array>
#include <vector>

#include "olv2/evaluation/distance_matrix.h"

namespace olv2 {

// An ordered 3D polyline in ego metres (float32 storage, as the official evaluator keeps it).
using Polyline = std::vector<std::array<float, 3>>;

// Discrete Fréchet distance between two non-empty polylines (3D Euclidean point distance,
// computed in double). Symmetric; direction matters (a reversed lane is far from itself).
double discrete_frechet(const Polyline& a, const Polyline& b);

// Distance relaxation of a ground-truth lane: max(0.5, 1 - 0.005 * min_q ||q||), the norm taken
// in float32 as the official evaluator does. Lanes 100 m or more away count half their distance.
double lane_relaxation_factor(const Polyline& ground_truth);

// Relaxed Fréchet distance of every (ground-truth lane, predicted lane) pair. Pairs that cannot
// be within `max_threshold` hold a value >= max_threshold instead of the exact distance; they can
// never match, so no metric depends on that value.
DistanceMatrix relaxed_frechet_matrix(const std::vector<Polyline>& ground_truth,
                                      const std::vector<Polyline>& predictions,
                                      double max_threshold);

}  // namespace olv2
