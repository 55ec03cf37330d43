#pragma once
// The OpenLane-V2 Score, OLS, from the detection and topology metrics.
#include "olv2/evaluation/topology_metrics.h"

namespace olv2 {

// OpenLane-V2 Score: (DET_l + DET_t + sqrt(TOP_ll) + sqrt(TOP_lt)) / 4, in double; in float32
// when both TOP values are float32, as numpy does.
double openlane_v2_score(float det_l, float det_t, const TopologyScore& top_ll,
                         const TopologyScore& top_lt);

}  // namespace olv2
