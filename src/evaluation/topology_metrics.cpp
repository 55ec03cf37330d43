#include "olv2/evaluation/topology_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "olv2/evaluation/numpy_mean.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

// v1.0's confidence levels per frame.
constexpr int kConfidenceLevels = 10;

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

// v1.0: the matched predictions at confidence level `level` of the frame.
std::vector<int> confident_predictions(const FrameMatch& match, std::size_t num_ground_truth,
                                       const std::vector<float>& confidences, int level) {
  const std::vector<float> levels = confidence_levels(match, confidences, num_ground_truth);
  if (levels.empty()) return std::vector<int>(num_ground_truth, FrameMatch::kUnmatched);
  return prediction_of_ground_truth(match, num_ground_truth, confidences,
                                    levels[static_cast<std::size_t>(level)]);
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
                                     const std::vector<int>& col_prediction,
                                     MetricVersion version) {
  std::vector<double> projected(rows * cols);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) {
      const int pr = row_prediction[r];
      const int pc = col_prediction[c];
      if (pr != FrameMatch::kUnmatched && pc != FrameMatch::kUnmatched) {
        projected[r * cols + c] =
            predicted[static_cast<std::size_t>(pr) * predicted_cols + static_cast<std::size_t>(pc)];
      } else if (version == MetricVersion::kV1_0) {
        projected[r * cols + c] = ground_truth[r * cols + c] != 0 ? 0.0 : 1.0;
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

std::vector<int> prediction_of_ground_truth(const FrameMatch& match, std::size_t num_ground_truth,
                                            const std::vector<float>& confidences,
                                            float min_confidence) {
  std::vector<int> prediction(num_ground_truth, FrameMatch::kUnmatched);
  for (std::size_t j = 0; j < match.matched_gt.size(); ++j) {
    if (match.matched_gt[j] != FrameMatch::kUnmatched && confidences[j] >= min_confidence) {
      prediction[static_cast<std::size_t>(match.matched_gt[j])] = static_cast<int>(j);
    }
  }
  return prediction;
}

const char* to_string(MetricVersion version) {
  return version == MetricVersion::kV1_0 ? "v1.0" : "v1.1";
}

MetricVersion metric_version_from_string(const std::string& text, const std::string& where) {
  if (text == "v1.1") return MetricVersion::kV1_1;
  if (text == "v1.0") return MetricVersion::kV1_0;
  throw input_error(where + ": metric version `" + text + "`, expected v1.1 or v1.0");
}

std::vector<float> confidence_levels(const FrameMatch& match, const std::vector<float>& confidences,
                                     std::size_t num_ground_truth) {
  if (confidences.empty()) return {};
  const std::vector<std::size_t> order = order_by_descending_confidence(confidences);
  // float32 recalls of the cumulated true positives, as the devkit divides them.
  const float denominator =
      std::max(static_cast<float>(num_ground_truth), std::numeric_limits<float>::epsilon());
  std::vector<float> recalls(order.size());
  float true_positives = 0.0f;
  for (std::size_t k = 0; k < order.size(); ++k) {
    true_positives += match.true_positive[order[k]] != 0 ? 1.0f : 0.0f;
    recalls[k] = true_positives / denominator;
  }
  // numpy.percentile(recalls, 10 r, method='closest_observation') before numpy 2.0.1: index
  // n q - 1.5, rounded up unless it is an even integer; the recalls are already ascending.
  const auto n = static_cast<double>(recalls.size());
  std::vector<float> levels;
  for (int r = 1; r <= kConfidenceLevels; ++r) {
    const double q = static_cast<double>(10 * r) / 100.0;
    const double index = n * q - 1.0 - 0.5;
    const double previous = std::floor(index);
    const bool keep_previous = index - previous == 0.0 && std::fmod(previous, 2.0) == 0.0;
    const double chosen = std::max(0.0, keep_previous ? previous : previous + 1.0);
    const float taken = recalls[static_cast<std::size_t>(chosen)];
    std::size_t last = 0;
    for (std::size_t k = 0; k < recalls.size(); ++k) {
      if (recalls[k] == taken) last = k;
    }
    levels.push_back(confidences[order[last]]);
  }
  return levels;
}

TopologyScore evaluate_topology_lclc(const std::vector<FrameGroundTruth>& ground_truth,
                                     const std::vector<FramePrediction>& predictions,
                                     const LaneDetectionResult& lanes, MetricVersion version) {
  VertexAps vertex_aps;
  const int levels = version == MetricVersion::kV1_0 ? kConfidenceLevels : 1;
  for (int level = 0; level < levels; ++level) {
    for (std::size_t t = 0; t < kLaneThresholds.size(); ++t) {
      for (std::size_t f = 0; f < ground_truth.size(); ++f) {
        const FrameGroundTruth& gt = ground_truth[f];
        const std::size_t n = gt.num_lanes();
        if (n == 0) continue;
        const FrameMatch& match = lanes.matches[t][f];
        const std::vector<int> lane_prediction =
            version == MetricVersion::kV1_0
                ? confident_predictions(match, n, predictions[f].lane_confidences(), level)
                : prediction_of_ground_truth(match, n);
        const std::vector<double> scores =
            project_topology(gt.topology_lclc, n, n, predictions[f].topology_lclc,
                             predictions[f].num_lanes(), lane_prediction, lane_prediction, version);
        collect_vertex_aps(gt.topology_lclc, scores, n, n, vertex_aps);
      }
    }
  }
  return vertex_aps.mean();
}

TopologyScore evaluate_topology_lcte(const std::vector<FrameGroundTruth>& ground_truth,
                                     const std::vector<FramePrediction>& predictions,
                                     const LaneDetectionResult& lanes,
                                     const TrafficElementDetectionResult& traffic_elements,
                                     MetricVersion version) {
  VertexAps vertex_aps;
  const int levels = version == MetricVersion::kV1_0 ? kConfidenceLevels : 1;
  for (int level = 0; level < levels; ++level) {
    for (std::size_t t = 0; t < kLaneThresholds.size(); ++t) {
      for (std::size_t f = 0; f < ground_truth.size(); ++f) {
        const FrameGroundTruth& gt = ground_truth[f];
        const std::size_t n = gt.num_lanes();
        const std::size_t m = gt.num_traffic_elements();
        if (n == 0 || m == 0) continue;
        const FrameMatch& lane_match = lanes.matches[t][f];
        const FrameMatch& element_match = traffic_elements.matches[f];
        std::vector<int> lane_prediction;
        std::vector<int> element_prediction;
        if (version == MetricVersion::kV1_0) {
          lane_prediction =
              confident_predictions(lane_match, n, predictions[f].lane_confidences(), level);
          element_prediction = confident_predictions(
              element_match, m, predictions[f].traffic_element_confidences(), level);
        } else {
          lane_prediction = prediction_of_ground_truth(lane_match, n);
          element_prediction = prediction_of_ground_truth(element_match, m);
        }
        const std::vector<double> scores = project_topology(
            gt.topology_lcte, n, m, predictions[f].topology_lcte,
            predictions[f].num_traffic_elements(), lane_prediction, element_prediction, version);
        collect_vertex_aps(gt.topology_lcte, scores, n, m, vertex_aps);
      }
    }
  }
  return vertex_aps.mean();
}

}  // namespace olv2
