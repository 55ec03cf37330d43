#pragma once
// The Map Element Bucket's result formatting (its dataset's `format_results`): lane segments as
// LaneSegNet formats them, the area head's areas, the traffic elements and both topologies.
#include <cstdint>
#include <vector>

#include "olv2/data/batch.h"
#include "olv2/data/frame_prediction.h"
#include "olv2/models/detectors/frame_test_outputs.h"

namespace olv2 {

// Per frame: every lane-segment query by descending confidence, its three lines resampled to 10
// points (lanesegnet_frame_predictions, one class); every area (`outputs[b].areas`, [V, P, 3]
// with class scores [V, C]) by descending best class score, resampled to 20 points along its
// length, category = best class + 1; every traffic element (`outputs[b].te`) by descending
// score, as TopoNet formats them; `topology_lsls` and `topology_lste` in those orders. Where the
// original keeps the lane-segment to traffic-element columns in query order while it sorts the
// traffic elements, the columns here follow the traffic elements they relate to (as TopoNet's
// formatting does), so the devkit reads each probability against its own element. The frames'
// split is left empty for the caller to set.
std::vector<FramePrediction> map_element_bucket_frame_predictions(
    const Batch& batch, const std::vector<FrameTestOutputs>& outputs, int64_t points_num);

}  // namespace olv2
