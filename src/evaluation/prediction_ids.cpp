#include "olv2/evaluation/prediction_ids.h"

#include <algorithm>

namespace olv2 {

namespace {
constexpr int64_t kFirstLaneId = 1000;
constexpr int64_t kFirstTrafficElementId = 2000;
}  // namespace

int64_t lane_prediction_id(std::size_t lane) { return kFirstLaneId + static_cast<int64_t>(lane); }

int64_t traffic_element_prediction_id(const FramePrediction& prediction, std::size_t element) {
  const int64_t first =
      std::max(kFirstTrafficElementId, lane_prediction_id(prediction.lanes.size()));
  return first + static_cast<int64_t>(element);
}

int64_t area_prediction_id(const FramePrediction& prediction, std::size_t area) {
  return traffic_element_prediction_id(prediction, prediction.traffic_elements.size()) +
         static_cast<int64_t>(area);
}

}  // namespace olv2
