#pragma once
// TopoNet's result formatting (its datasets' `format_results`): lanes and traffic elements each
// sorted by confidence, lanes resampled to 11 points evenly spaced along their length.
#include <cstdint>
#include <vector>

#include "olv2/data/batch.h"
#include "olv2/data/frame_prediction.h"
#include "olv2/models/detectors/frame_test_outputs.h"

namespace olv2 {

// `outputs[b].lc.objects` holds each query's lane as points of `pts_dim` coordinates ((x, y)
// lanes get z = 0); the topology matrices follow the sorted order. The frames' split is left
// empty for the caller to set.
std::vector<FramePrediction> toponet_frame_predictions(const Batch& batch,
                                                       const std::vector<FrameTestOutputs>& outputs,
                                                       int64_t pts_dim);

}  // namespace olv2
