#pragma once
// The OpenLane-V2 devkit's metrics of a whole split: scoring predictions, and the metrics as JSON
// and as a table.
#include <array>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "olv2/data/frame_prediction.h"
#include "olv2/evaluation/detection_metrics.h"
#include "olv2/evaluation/ground_truth.h"
#include "olv2/evaluation/lane_segment_metrics.h"
#include "olv2/evaluation/topology_metrics.h"

namespace olv2 {

// LaneSegNet's own numbers (its `lanesegnet_evaluate`), reported beside the devkit's: the lane
// segments' AP and topology as DET_l and TOP_ll, the pedestrian crossings' AP against LaneSegNet's
// ground-truth rule (FrameGroundTruth::lanesegnet_crossings), and their mean.
struct LaneSegNetMetrics {
  double ap_ls = 0.0;
  double ap_ped = 0.0;
  double top_lsls = 0.0;
  double map = 0.0;  // (AP_ls + AP_ped) / 2
};

// The devkit's metrics of a split, in the set of the task the ground truth belongs to:
// - v1.x lane centerlines: the "OpenLane-V2 Score" (OLS) of the devkit 1.x, its TOP in the
//   definitions of `version`, and the F-Score;
// - v2.x lane segments: the "OpenLane-V2 UniScore" of the devkit 2.x `lanesegment` evaluation,
//   which adds DET_a over areas; DET_l is over lane segments and TOP_ll / TOP_lt over
//   `topology_lsls` / `topology_lste`; LaneSegNet's own numbers beside it when the ground truth
//   allows them.
struct EvaluationMetrics {
  FrameFormat task = FrameFormat::kLaneCenterline;
  MetricVersion version = MetricVersion::kV1_1;  // centerline only
  double det_l = 0.0;
  double det_t = 0.0;
  double top_ll = 0.0;
  double top_lt = 0.0;
  double score = 0.0;    // OLS (centerline) or UniScore (lane segment)
  double f_score = 0.0;  // centerline: "F-Score for 3D Lane" (lane_f_score.h), part of no other
  double det_a = 0.0;    // lane segment
  std::array<double, kLaneThresholds.size()> det_l_per_threshold{};
  std::array<double, kNumAttributes> det_t_per_attribute{};
  // lane segment: [category - 1][threshold], kAreaCategoryNames x kAreaThresholds
  std::array<std::array<double, kAreaThresholds.size()>, kAreaCategoryNames.size()>
      det_a_per_category{};
  std::optional<LaneSegNetMetrics> lanesegnet;  // lane segment, LaneSegNet's ground truth only
  std::size_t num_frames = 0;
};

// "OpenLane-V2 Score" or "OpenLane-V2 UniScore": the devkit's name of the metric set.
const char* metric_set_name(FrameFormat task);

// Scores `predictions` against `ground_truth`, in the metric set of the ground truth's task.
// predictions[i] must be the prediction of frame ground_truth[i] (read_results_file returns them
// in that order). An input error names the first frame that does not fit (another frame, another
// task, wrong topology shapes, a lane segment without boundaries, non-finite numbers); an empty
// set, or one mixing the tasks, is an input error too. `version` applies to centerlines only.
EvaluationMetrics evaluate(const std::vector<FrameGroundTruth>& ground_truth,
                           const std::vector<FramePrediction>& predictions,
                           MetricVersion version = MetricVersion::kV1_1);

// Centerline: {"metric_set", "metric_version", "DET_l", "DET_t", "TOP_ll", "TOP_lt", "OLS",
//  "F-Score", "DET_l_per_threshold": {"1.0", "2.0", "3.0"}, "DET_t_per_attribute": {"0".."12"},
//  "num_frames"}.
// Lane segment: {"metric_set", "DET_l", "DET_a", "DET_t", "TOP_ll", "TOP_lt", "UniScore",
//  "DET_l_per_threshold", "DET_a_per_category": {"pedestrian_crossing": {"0.5", "1.0", "1.5"},
//  "road_boundary": {...}}, "DET_t_per_attribute", ["LaneSegNet": {"mAP", "AP_ls", "AP_ped",
//  "TOP_lsls"}], "num_frames"}.
nlohmann::ordered_json metrics_to_json(const EvaluationMetrics& metrics);

// A readable multi-line table of the metrics.
std::string format_metrics_table(const EvaluationMetrics& metrics);

// The headline metrics of a set, by their devkit (and LaneSegNet) names, in log order: centerline
// DET_l, DET_t, TOP_ll, TOP_lt, OLS, F-Score; lane segment mAP, AP_ls, AP_ped, TOP_lsls (when
// present, in LaneSegNet's order), then DET_l, DET_a, DET_t, TOP_ll, TOP_lt, UniScore.
std::vector<std::pair<std::string, double>> headline_metrics(const EvaluationMetrics& metrics);

// Every name headline_metrics can give, of both tasks: what a config or flag may ask for.
const std::vector<std::string>& metric_names();

// The value of headline metric `name`; an input error, naming `where`, the metric set and its
// metrics, when the set has no such metric (OLS asked of a lane-segment run, say).
double headline_metric(const EvaluationMetrics& metrics, const std::string& name,
                       const std::string& where);

// An input error, naming `where`, when `name` is not a headline metric of the frames a collection
// of `kind` gives (LaneSegNet's collection adds LaneSegNet's own numbers): checked before a run.
void require_metric_of(CollectionKind kind, const std::string& name, const std::string& where);

// "OLS 0.3277, TOP_ll 0.0512": the `names` (of metric_names()) in the order given.
std::string format_metrics_line(const EvaluationMetrics& metrics,
                                const std::vector<std::string>& names);

}  // namespace olv2
