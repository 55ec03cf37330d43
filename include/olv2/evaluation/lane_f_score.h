#pragma once
// The OpenLane-V2 devkit's "F-Score for 3D Lane", the lane F1 logged beside OLS.
#include <vector>

#include "olv2/data/frame_prediction.h"
#include "olv2/evaluation/ground_truth.h"

namespace olv2 {

// The devkit's "F-Score for 3D Lane" (its f_score.py, OpenLane-V1's lane F1), which the
// original logs beside OLS and which is part of no other metric. Per frame, every predicted lane
// and every ground-truth lane (no confidence filter) whose first point lies before x = 49 and
// whose last point lies after x = -50 is resampled at x = -50, -49, ..., 49 by linear
// interpolation and extrapolation in x (y and z), and visible where x lies within its own
// extent; lanes visible at fewer than 2 samples are dropped. A pair's cost is the truncated sum
// over the samples of the y-z distance (0 where neither lane is visible, 1.5 where one is; a sum
// in (0, 1) costs 1; kept to 32 bits as the devkit's solver keeps it); the minimum-cost one-to-one
// matching pairs min(G, P) lanes. A pair under cost 150 counts toward recall when the samples
// visible in both and under 1.5 apart cover 75 % of the ground truth's visible samples, toward
// precision when they cover 75 % of the prediction's. R and P are summed over the frames; F = 2RP /
// (R + P), 0 without ground truth or predictions. Ties between matchings of equal total cost may
// resolve differently from the devkit's min-cost-flow solver (OR-tools), which changes F only when
// such a tie exists. predictions[i] is the prediction of ground_truth[i].
double lane_f_score(const std::vector<FrameGroundTruth>& ground_truth,
                    const std::vector<FramePrediction>& predictions);

}  // namespace olv2
