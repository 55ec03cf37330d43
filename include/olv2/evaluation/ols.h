#pragma once
// The headline scores of OpenLane-V2 from the detection and topology metrics: the OpenLane-V2
// Score (OLS) of the centerline task and the UniScore of the lane-segment task.
#include "olv2/evaluation/topology_metrics.h"

namespace olv2 {

// OpenLane-V2 Score: (DET_l + DET_t + sqrt(TOP_ll) + sqrt(TOP_lt)) / 4, in double; in float32
// when both TOP values are float32, as numpy does.
double openlane_v2_score(float det_l, float det_t, const TopologyScore& top_ll,
                         const TopologyScore& top_lt);

// UniScore (devkit 2.x): (DET_l + DET_a + DET_t + sqrt(TOP_ll) + sqrt(TOP_lt)) / 5, in the same
// precision rule as OLS.
double openlane_v2_uniscore(float det_l, float det_a, float det_t, const TopologyScore& top_ll,
                            const TopologyScore& top_lt);

}  // namespace olv2
