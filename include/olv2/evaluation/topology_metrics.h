#pragma once
// The OpenLane-V2 topology metrics, TOP_ll and TOP_lt, in the devkit's v1.0 and v1.1 definitions.
#include <cstdint>
#include <string>
#include <vector>

#include "olv2/data/frame_prediction.h"
#include "olv2/evaluation/detection_metrics.h"
#include "olv2/evaluation/ground_truth.h"
#include "olv2/evaluation/matching.h"

namespace olv2 {

// A topology score counts as a predicted edge only when strictly above this.
inline constexpr double kEdgeScoreThreshold = 0.5;

// The devkit's TOP definitions: tag v1.1.0's (the default; unmatched entries are false edges
// ranked last or missed edges) or tag v1.0.0's (unmatched entries are scored as the ground
// truth, 1 - GT, and every frame counts ten times, once per confidence level: the predictions
// kept at level r are those at least as confident as the one where the frame's recall reaches
// its (10 r)th percentile, numpy's `closest_observation` before numpy 2.0.1). DET_l, DET_t and
// OLS are the same in both.
enum class MetricVersion { kV1_0, kV1_1 };
const char* to_string(MetricVersion version);  // "v1.0" / "v1.1"
// "v1.0" or "v1.1"; an input error naming `where` otherwise.
MetricVersion metric_version_from_string(const std::string& text, const std::string& where);

// A TOP value, and whether the original holds it in float32: numpy keeps the mean in float32 when
// every collected AP is an exact 0 or 1 (or nothing is collected), which also decides the
// precision of OLS. The difference is below 1e-7; keeping it makes results bit-identical.
struct TopologyScore {
  double value = 0.0;
  bool is_float32 = true;
};

// Per-vertex AP of one row or column of an adjacency matrix: `is_neighbour[k]` is the ground
// truth, `scores[k]` the predicted score of the same candidate. Candidates scoring > 0.5 are
// ranked by descending score (stable); AP = sum of precision at each relevant rank / |N|.
// 1 when there are neither ground-truth nor predicted neighbours, 0 when only one side is empty.
double vertex_average_precision(const std::vector<std::uint8_t>& is_neighbour,
                                const std::vector<double>& scores);

// The projection of a predicted [P_rows x P_cols] topology onto the ground-truth [rows x cols]
// graph. Entries whose row and column ground truth are both matched take the score of the
// matching predictions; the others (v1.1) take 0 where the ground truth is an edge (a missed
// edge) and 0.5 + FLT_EPSILON where it is not (a false edge ranked last), or (v1.0) 1 - GT.
// `row_prediction[r]` / `col_prediction[c]` is the matched prediction index or kUnmatched.
std::vector<double> project_topology(const std::vector<std::int8_t>& ground_truth, std::size_t rows,
                                     std::size_t cols, const std::vector<float>& predicted,
                                     std::size_t predicted_cols,
                                     const std::vector<int>& row_prediction,
                                     const std::vector<int>& col_prediction,
                                     MetricVersion version = MetricVersion::kV1_1);

// For each ground-truth object, the index of the prediction matched to it, or kUnmatched; with
// `confidences`, only predictions at least `min_confidence` confident count.
std::vector<int> prediction_of_ground_truth(const FrameMatch& match, std::size_t num_ground_truth);
std::vector<int> prediction_of_ground_truth(const FrameMatch& match, std::size_t num_ground_truth,
                                            const std::vector<float>& confidences,
                                            float min_confidence);

// v1.0's confidence levels of one frame's predictions at one threshold: for r = 1..10 the
// confidence of the last prediction (by descending confidence) whose recall equals the
// (10 r)th percentile of the recalls. Empty without predictions.
std::vector<float> confidence_levels(const FrameMatch& match, const std::vector<float>& confidences,
                                     std::size_t num_ground_truth);

// TOP_ll: the mean of every outgoing and incoming per-vertex AP over the lane thresholds and the
// frames with ground-truth lanes (v1.0: and the ten confidence levels); 0 when nothing is
// collected (where the v1.0 devkit fails).
TopologyScore evaluate_topology_lclc(const std::vector<FrameGroundTruth>& ground_truth,
                                     const std::vector<FramePrediction>& predictions,
                                     const LaneDetectionResult& lanes, MetricVersion version);

// TOP_lt: the same over lane rows and traffic element columns of the frames with both ground-truth
// lanes and traffic elements; traffic elements use the attribute-agnostic matching.
TopologyScore evaluate_topology_lcte(const std::vector<FrameGroundTruth>& ground_truth,
                                     const std::vector<FramePrediction>& predictions,
                                     const LaneDetectionResult& lanes,
                                     const TrafficElementDetectionResult& traffic_elements,
                                     MetricVersion version);

}  // namespace olv2
