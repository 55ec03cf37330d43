#include "olv2/evaluation/lane_segment_distance.h"

#include "olv2/evaluation/chamfer.h"
#include "olv2/evaluation/frechet.h"

namespace olv2 {

DistanceMatrix lane_segment_distance_matrix(const FrameGroundTruth& ground_truth,
                                            const FramePrediction& prediction,
                                            double max_threshold) {
  DistanceMatrix distances(ground_truth.num_lanes(), prediction.num_lanes(), kUnmeasuredDistance);
  for (std::size_t i = 0; i < distances.rows; ++i) {
    const double relaxation = lane_relaxation_factor(ground_truth.lanes[i]);
    for (std::size_t j = 0; j < distances.cols; ++j) {
      const LanePrediction& lane = prediction.lanes[j];
      if (!(chamfer_distance(ground_truth.lanes[i], lane.points) * relaxation < max_threshold)) {
        continue;
      }
      const double distance =
          0.5 * (discrete_frechet(lane.points, ground_truth.lanes[i]) +
                 chamfer_distance(ground_truth.left_lanelines[i], lane.left_laneline) +
                 chamfer_distance(ground_truth.right_lanelines[i], lane.right_laneline));
      distances.at(i, j) = distance * relaxation;
    }
  }
  return distances;
}

DistanceMatrix area_distance_matrix(const std::vector<Polyline>& ground_truth,
                                    const std::vector<AreaPrediction>& predictions) {
  DistanceMatrix distances(ground_truth.size(), predictions.size(), kUnmeasuredDistance);
  for (std::size_t i = 0; i < distances.rows; ++i) {
    for (std::size_t j = 0; j < distances.cols; ++j) {
      distances.at(i, j) = chamfer_distance(ground_truth[i], predictions[j].points);
    }
  }
  return distances;
}

}  // namespace olv2
