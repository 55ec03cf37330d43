#include "olv2/evaluation/lane_segment_metrics.h"

#include "olv2/evaluation/average_precision.h"
#include "olv2/evaluation/matching.h"
#include "olv2/evaluation/numpy_mean.h"

namespace olv2 {

std::array<float, kAreaThresholds.size()> area_aps(
    const std::vector<std::vector<int>>& gt_categories,
    const std::vector<FramePrediction>& predictions, const std::vector<DistanceMatrix>& distances,
    int category) {
  std::array<float, kAreaThresholds.size()> aps{};
  for (std::size_t t = 0; t < kAreaThresholds.size(); ++t) {
    DetectionTally tally;
    for (std::size_t f = 0; f < predictions.size(); ++f) {
      std::vector<std::size_t> rows;
      for (std::size_t i = 0; i < gt_categories[f].size(); ++i) {
        if (gt_categories[f][i] == category) rows.push_back(i);
      }
      std::vector<std::size_t> cols;
      std::vector<float> confidences;
      const std::vector<AreaPrediction>& areas = predictions[f].areas;
      for (std::size_t j = 0; j < areas.size(); ++j) {
        if (areas[j].category != category) continue;
        cols.push_back(j);
        confidences.push_back(areas[j].confidence);
      }
      const FrameMatch match =
          greedy_match(select(distances[f], rows, cols), confidences, kAreaThresholds[t]);
      tally.add_frame(confidences, match, rows.size());
    }
    aps[t] = average_precision(tally);
  }
  return aps;
}

AreaDetectionResult evaluate_area_detection(const std::vector<std::vector<int>>& gt_categories,
                                            const std::vector<FramePrediction>& predictions,
                                            const std::vector<DistanceMatrix>& distances) {
  AreaDetectionResult result;
  std::vector<float> all;
  for (std::size_t c = 0; c < kAreaCategoryNames.size(); ++c) {
    result.ap[c] = area_aps(gt_categories, predictions, distances, static_cast<int>(c + 1));
    all.insert(all.end(), result.ap[c].begin(), result.ap[c].end());
  }
  result.det_a = numpy_mean(all);
  return result;
}

}  // namespace olv2
