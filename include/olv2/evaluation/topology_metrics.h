#pragma once
#include <cstdint>
#include <vector>

#include "olv2/data/frame_prediction.h"
#include "olv2/evaluation/detection_metrics.h"
#include "olv2/evaluation/ground_truth.h"
#include "olv2/evaluation/matching.h"

namespace olv2 {

// A topology score counts as a predicted edge only when strictly above this.
inline constexpr double kEdgeScoreThreshold = 0.5;

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

// The v1.1 projection of a predicted [P_rows x P_cols] topology onto the ground-truth
// [rows x cols] graph. Entries whose row and column ground truth are both matched take the
// score of the matching predictions; the others take 0 where the ground truth is an edge (a
// missed edge) and 0.5 + FLT_EPSILON where it is not (a false edge ranked last).
// `row_prediction[r]` / `col_prediction[c]` is the matched prediction index or kUnmatched.
std::vector<double> project_topology(const std::vector<std::int8_t>& ground_truth, std::size_t rows,
                                     std::size_t cols, const std::vector<float>& predicted,
                                     std::size_t predicted_cols,
                                     const std::vector<int>& row_prediction,
                                     const std::vector<int>& col_prediction);

// For each ground-truth object, the index of the prediction matched to it, or kUnmatched.
std::vector<int> prediction_of_ground_truth(const FrameMatch& match, std::size_t num_ground_truth);

// TOP_ll: the mean of every outgoing and incoming per-vertex AP over the lane thresholds and the
// frames with ground-truth lanes; 0 when nothing is collected.
TopologyScore evaluate_topology_lclc(const std::vector<FrameGroundTruth>& ground_truth,
                                     const std::vector<FramePrediction>& predictions,
                                     const LaneDetectionResult& lanes);

// TOP_lt: the same over lane rows and traffic element columns of the frames with both ground-truth
// lanes and traffic elements; traffic elements use the attribute-agnostic matching.
TopologyScore evaluate_topology_lcte(const std::vector<FrameGroundTruth>& ground_truth,
                                     const std::vector<FramePrediction>& predictions,
                                     const LaneDetectionResult& lanes,
                                     const TrafficElementDetectionResult& traffic_elements);

}  // namespace olv2
