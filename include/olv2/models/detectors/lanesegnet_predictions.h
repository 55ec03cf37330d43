#pragma once
// LaneSegNet's result formatting (its dataset's `format_results`): every query by descending
// confidence, its class the best-scoring one; lane segments (class 0) as their three lines each
// resampled to 10 points along its length, pedestrian crossings (class 1) as areas: the left line
// then the reversed right line, each resampled to 10 points; the lane-segment topology without
// the crossings' rows and columns.
#include <cstdint>
#include <vector>

#include "olv2/data/batch.h"
#include "olv2/data/frame_prediction.h"
#include "olv2/models/detectors/frame_test_outputs.h"

namespace olv2 {

// `outputs[b].lc.objects` holds each query's centerline, left and right lines of `points_num`
// (x, y, z) points; `outputs[b].lc.scores` its class scores [Q, C], C at most 2 (a third class
// has no results form in the original either: an error). The frames' split is left empty for
// the caller to set.
std::vector<FramePrediction> lanesegnet_frame_predictions(
    const Batch& batch, const std::vector<FrameTestOutputs>& outputs, int64_t points_num);

}  // namespace olv2
