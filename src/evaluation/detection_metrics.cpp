#include "olv2/evaluation/detection_metrics.h"

#include "olv2/evaluation/average_precision.h"
#include "olv2/evaluation/numpy_mean.h"

namespace olv2 {
namespace {

// Indices of the traffic elements whose attribute passes `keep`.
template <typename Predicate>
std::vector<std::size_t> indices_where(std::size_t count, Predicate keep) {
  std::vector<std::size_t> indices;
  for (std::size_t i = 0; i < count; ++i) {
    if (keep(i)) indices.push_back(i);
  }
  return indices;
}

// One AP over the dataset for traffic elements restricted by `gt_keep` / `pred_keep`, at the
// DET_t threshold. Matches are appended to `matches` when it is non-null.
template <typename GtKeep, typename PredKeep>
float traffic_element_ap(const std::vector<FramePrediction>& predictions,
                         const std::vector<DistanceMatrix>& distances, GtKeep gt_keep,
                         PredKeep pred_keep, std::vector<FrameMatch>* matches) {
  DetectionTally tally;
  for (std::size_t f = 0; f < predictions.size(); ++f) {
    const DistanceMatrix& frame_distances = distances[f];
    const auto& elements = predictions[f].traffic_elements;
    const std::vector<std::size_t> rows =
        indices_where(frame_distances.rows, [&](std::size_t i) { return gt_keep(f, i); });
    const std::vector<std::size_t> cols =
        indices_where(elements.size(), [&](std::size_t j) { return pred_keep(f, j); });
    std::vector<float> confidences;
    confidences.reserve(cols.size());
    for (std::size_t j : cols) confidences.push_back(elements[j].confidence);
    FrameMatch match =
        greedy_match(select(frame_distances, rows, cols), confidences, kTrafficElementThreshold);
    tally.add_frame(confidences, match, rows.size());
    if (matches) matches->push_back(std::move(match));
  }
  return average_precision(tally);
}

}  // namespace

LaneDetectionResult evaluate_lane_detection(const std::vector<FramePrediction>& predictions,
                                            const std::vector<DistanceMatrix>& lane_distances) {
  LaneDetectionResult result;
  std::vector<std::vector<float>> confidences;
  confidences.reserve(predictions.size());
  for (const FramePrediction& prediction : predictions) {
    confidences.push_back(prediction.lane_confidences());
  }
  for (std::size_t t = 0; t < kLaneThresholds.size(); ++t) {
    DetectionTally tally;
    result.matches[t].reserve(predictions.size());
    for (std::size_t f = 0; f < predictions.size(); ++f) {
      FrameMatch match = greedy_match(lane_distances[f], confidences[f], kLaneThresholds[t]);
      tally.add_frame(confidences[f], match, lane_distances[f].rows);
      result.matches[t].push_back(std::move(match));
    }
    result.ap_per_threshold[t] = average_precision(tally);
  }
  result.det_l = numpy_mean(
      std::vector<float>(result.ap_per_threshold.begin(), result.ap_per_threshold.end()));
  return result;
}

TrafficElementDetectionResult evaluate_traffic_element_detection(
    const std::vector<FrameGroundTruth>& ground_truth,
    const std::vector<FramePrediction>& predictions,
    const std::vector<DistanceMatrix>& traffic_element_distances) {
  TrafficElementDetectionResult result;
  for (int attribute = 0; attribute < kNumAttributes; ++attribute) {
    const auto gt_has_attribute = [&](std::size_t f, std::size_t i) {
      return ground_truth[f].traffic_element_attributes[i] == attribute;
    };
    const auto prediction_has_attribute = [&](std::size_t f, std::size_t j) {
      return predictions[f].traffic_elements[j].attribute == attribute;
    };
    result.ap_per_attribute[attribute] =
        traffic_element_ap(predictions, traffic_element_distances, gt_has_attribute,
                           prediction_has_attribute, nullptr);
  }
  result.det_t = numpy_mean(
      std::vector<float>(result.ap_per_attribute.begin(), result.ap_per_attribute.end()));

  const auto any = [](std::size_t, std::size_t) { return true; };
  result.matches.reserve(predictions.size());
  result.attribute_agnostic_ap =
      traffic_element_ap(predictions, traffic_element_distances, any, any, &result.matches);
  return result;
}

}  // namespace olv2
