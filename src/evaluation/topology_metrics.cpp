#include "olv2/evaluation/topology_metrics.h"

#include <algorithm>
#include <limits>

#include "olv2/evaluation/numpy_mean.h"

namespace olv2 {
namespace {

// Score of an unmatched non-edge: just above the cut-off, so it counts as a false edge.
const double kUnmatchedNonEdgeScore =
    0.5 + static_cast<double>(std::numeric_limits<float>::epsilon());

// Per-vertex APs in collection order, and whether any came from the quotient (a float64 value
// in the original; the exact 0 and 1 are float32).
struct VertexAps {
  std::vector<double> values;
  bool any_quotient = false;

  void add(const std::vector<std::uint8_t>& is_neighbour, const std::vector<double>& scores) {
    const double ap = vertex_average_precision(is_neighbour, scores);
    const bool has_neighbour = std::any_of(is_neighbour.begin(), is_neighbour.end(),
                                           [](std::uint8_t flag) { return flag != 0; });
    const bool has_candidate =
        std::any_of(scores.begin(), scores.end(), [](double s) { return s > kEdgeScoreThreshold; });
    any_quotient = any_quotient || (has_neighbour && has_candidate);
    values.push_back(ap);
  }

  TopologyScore mean() const {
    if (values.empty()) return {0.0, true};
    if (any_quotient) return {numpy_mean(values), false};
    const std::vector<float> exact(values.begin(), values.end());
    return {numpy_mean(exact), true};
  }
};

// Adds the per-vertex AP of every row, then of every column, of a [rows x cols] graph.
void collect_vertex_aps(const std::vector<std::int8_t>& ground_truth,
                        const std::vector<double>& scores, std::size_t rows, std::size_t cols,
                        VertexAps& out) {
  std::vector<std::uint8_t> is_neighbour;
  std::vector<double> candidate_scores;
  for (std::size_t r = 0; r < rows; ++r) {
    is_neighbour.assign(ground_truth.begin() + r * cols, ground_truth.begin() + (r + 1) * cols);
    candidate_scores.assign(scores.begin() + r * cols, scores.begin() + (r + 1) * cols);
    out.add(is_neighbour, candidate_scores);
  }
  for (std::size_t c = 0; c < cols; ++c) {
    is_neighbour.resize(rows);
    candidate_scores.resize(rows);
    for (std::size_t r = 0; r < rows; ++r) {
      is_neighbour[r] = ground_truth[r * cols + c] != 0;
      candidate_scores[r] = scores[r * cols + c];
    }
    out.add(is_neighbour, candidate_scores);
  }
}

}  // namespace

double vertex_average_precision(const std::vector<std::uint8_t>& is_neighbour,
                                const std::vector<double>& scores) {
  std::size_t num_neighbours = 0;
  for (std::uint8_t flag : is_neighbour) num_neighbours += flag != 0;
  std::vector<float> candidate_scores;
  std::vector<std::size_t> candidates;
  for (std::size_t k = 0; k < scores.size(); ++k) {
    if (scores[k] > kEdgeScoreThreshold) {
      candidates.push_back(k);
      candidate_scores.push_back(static_cast<float>(scores[k]));
    }
  }
  if (num_neighbours == 0 && candidates.empty()) return 1.0;
  if (num_neighbours == 0 || candidates.empty()) return 0.0;

  // float32 precisions and float32 dot product, then a double quotient, as the original.
  float hits = 0.0f;
  float precision_sum = 0.0f;
  float rank = 0.0f;
  for (std::size_t position : order_by_descending_confidence(candidate_scores)) {
    rank += 1.0f;
    if (is_neighbour[candidates[position]]) {
      hits += 1.0f;
      precision_sum += hits / rank;
    }
  }
  return static_cast<double>(precision_sum) / static_cast<double>(num_neighbours);
}

std::vector<double> project_topology(const std::vector<std::int8_t>& ground_truth, std::size_t rows,
                                     std::size_t cols, const std::vector<float>& predicted,
                                     std::size_t predicted_cols,
                                     const std::vector<int>& row_prediction,
                                     const std::vector<int>& col_prediction) {
  std::vector<double> projected(rows * cols);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) {
      const int pr = row_prediction[r];
      const int pc = col_prediction[c];
      if (pr != FrameMatch::kUnmatched && pc != FrameMatch::kUnmatched) {
        projected[r * cols + c] =
            predicted[static_cast<std::size_t>(pr) * predicted_cols + static_cast<std::size_t>(pc)];
      } else {
        projected[r * cols + c] = ground_truth[r * cols + c] != 0 ? 0.0 : kUnmatchedNonEdgeScore;
      }
    }
  }
  return projected;
}

std::vector<int> prediction_of_ground_truth(const FrameMatch& match, std::size_t num_ground_truth) {
  std::vector<int> prediction(num_ground_truth, FrameMatch::kUnmatched);
  for (std::size_t j = 0; j < match.matched_gt.size(); ++j) {
    if (match.matched_gt[j] != FrameMatch::kUnmatched) {
      prediction[static_cast<std::size_t>(match.matched_gt[j])] = static_cast<int>(j);
    }
  }
  return prediction;
}

TopologyScore evaluate_topology_lclc(const std::vector<FrameGroundTruth>& ground_truth,
                                     const std::vector<FramePrediction>& predictions,
                                     const LaneDetectionResult& lanes) {
  VertexAps vertex_aps;
  for (std::size_t t = 0; t < kLaneThresholds.size(); ++t) {
    for (std::size_t f = 0; f < ground_truth.size(); ++f) {
      const FrameGroundTruth& gt = ground_truth[f];
      const std::size_t n = gt.num_lanes();
      if (n == 0) continue;
      const std::vector<int> lane_prediction = prediction_of_ground_truth(lanes.matches[t][f], n);
      const std::vector<double> scores =
          project_topology(gt.topology_lclc, n, n, predictions[f].topology_lclc,
                           predictions[f].num_lanes(), lane_prediction, lane_prediction);
      collect_vertex_aps(gt.topology_lclc, scores, n, n, vertex_aps);
    }
  }
  return vertex_aps.mean();
}

TopologyScore evaluate_topology_lcte(const std::vector<FrameGroundTruth>& ground_truth,
                                     const std::vector<FramePrediction>& predictions,
                                     const LaneDetectionResult& lanes,
                                     const TrafficElementDetectionResult& traffic_elements) {
  VertexAps vertex_aps;
  for (std::size_t t = 0; t < kLaneThresholds.size(); ++t) {
    for (std::size_t f = 0; f < ground_truth.size(); ++f) {
      const FrameGroundTruth& gt = ground_truth[f];
      const std::size_t n = gt.num_lanes();
      const std::size_t m = gt.num_traffic_elements();
      if (n == 0 || m == 0) continue;
      const std::vector<int> lane_prediction = prediction_of_ground_truth(lanes.matches[t][f], n);
      const std::vector<int> element_prediction =
          prediction_of_ground_truth(traffic_elements.matches[f], m);
      const std::vector<double> scores = project_topology(
          gt.topology_lcte, n, m, predictions[f].topology_lcte,
          predictions[f].num_traffic_elements(), lane_prediction, element_prediction);
      collect_vertex_aps(gt.topology_lcte, scores, n, m, vertex_aps);
    }
  }
  return vertex_aps.mean();
}

}  // namespace olv2
