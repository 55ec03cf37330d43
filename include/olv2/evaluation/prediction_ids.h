#pragma once
// The ids a frame's predicted lanes and traffic elements carry in results files and submissions.
#include <cstddef>
#include <cstdint>

#include "olv2/data/frame_prediction.h"

namespace olv2 {

// The ids results files and submissions give a frame's predictions, unique within the frame as
// the devkit requires: 1000 + i for lane (or lane segment) i, 2000 + j for traffic element j
// (moved up past the lanes when a frame has more than 1000 of them), and the areas (v2.x) after
// the traffic elements.
int64_t lane_prediction_id(std::size_t lane);
int64_t traffic_element_prediction_id(const FramePrediction& prediction, std::size_t element);
int64_t area_prediction_id(const FramePrediction& prediction, std::size_t area);

}  // namespace olv2
