#pragma once
// The Chamfer distance of the OpenLane-V2 devkit, between lane boundaries and between areas.
#include "olv2/evaluation/frechet.h"

namespace olv2 {

// The devkit's Chamfer distance of two non-empty polylines: the mean over the predicted points of
// the distance to the nearest ground-truth point, and the same the other way, averaged (3D
// Euclidean distances in double). A ground truth that closes on itself (its last point equal to
// its first) loses the repeated point first; the prediction never does.
double chamfer_distance(const Polyline& ground_truth, const Polyline& prediction);

}  // namespace olv2
