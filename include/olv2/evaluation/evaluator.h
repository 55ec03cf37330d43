#pragma once
// The OpenLane-V2 devkit's metrics of a whole split: scoring predictions, and the metrics as JSON
// and as a table.
#include <array>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "olv2/data/frame_prediction.h"
#include "olv2/evaluation/detection_metrics.h"
#include "olv2/evaluation/ground_truth.h"
#include "olv2/evaluation/topology_metrics.h"

namespace olv2 {

// The OpenLane-V2 centerline metrics of the devkit, in the TOP definitions of `version`.
struct EvaluationMetrics {
  MetricVersion version = MetricVersion::kV1_1;
  double det_l = 0.0;
  double det_t = 0.0;
  double top_ll = 0.0;
  double top_lt = 0.0;
  double ols = 0.0;
  double f_score = 0.0;  // "F-Score for 3D Lane" (lane_f_score.h), part of no other metric
  std::array<double, kLaneThresholds.size()> det_l_per_threshold{};
  std::array<double, kNumAttributes> det_t_per_attribute{};
  std::size_t num_frames = 0;
};

// Scores `predictions` against `ground_truth`. predictions[i] must be the prediction of frame
// ground_truth[i] (read_results_file returns them in that order). An input error names the first
// frame that does not fit (another frame, wrong topology shapes, non-finite numbers); an empty
// set is an input error too.
EvaluationMetrics evaluate(const std::vector<FrameGroundTruth>& ground_truth,
                           const std::vector<FramePrediction>& predictions,
                           MetricVersion version = MetricVersion::kV1_1);

// {"metric_version", "DET_l", "DET_t", "TOP_ll", "TOP_lt", "OLS", "F-Score",
//  "DET_l_per_threshold": {"1.0", "2.0", "3.0"}, "DET_t_per_attribute": {"0".."12"},
//  "num_frames"}
nlohmann::ordered_json metrics_to_json(const EvaluationMetrics& metrics);

// A readable multi-line table of the metrics.
std::string format_metrics_table(const EvaluationMetrics& metrics);

// The headline metrics by their devkit names: OLS, DET_l, DET_t, TOP_ll, TOP_lt, F-Score.
const std::vector<std::string>& metric_names();

// "OLS 0.3277, TOP_ll 0.0512": the `names` (of metric_names()) in the order given.
std::string format_metrics_line(const EvaluationMetrics& metrics,
                                const std::vector<std::string>& names);

}  // namespace olv2
