#include "olv2/evaluation/evaluator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <thread>

#include "olv2/data/frame.h"
#include "olv2/evaluation/frechet.h"
#include "olv2/evaluation/iou_distance.h"
#include "olv2/evaluation/lane_f_score.h"
#include "olv2/evaluation/ols.h"
#include "olv2/evaluation/topology_metrics.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

bool all_finite(const FramePrediction& prediction) {
  const auto finite = [](float value) { return std::isfinite(value); };
  for (const LanePrediction& lane : prediction.lanes) {
    if (!finite(lane.confidence)) return false;
    for (const auto& point : lane.points) {
      if (!std::all_of(point.begin(), point.end(), finite)) return false;
    }
  }
  for (const TrafficElementPrediction& element : prediction.traffic_elements) {
    if (!finite(element.confidence) ||
        !std::all_of(element.box.begin(), element.box.end(), finite)) {
      return false;
    }
  }
  return std::all_of(prediction.topology_lclc.begin(), prediction.topology_lclc.end(), finite) &&
         std::all_of(prediction.topology_lcte.begin(), prediction.topology_lcte.end(), finite);
}

void check_frame(const FrameGroundTruth& gt, const FramePrediction& prediction) {
  const std::string where = "frame " + gt.frame.key();
  if (prediction.frame != gt.frame) {
    throw input_error(where + ": the predictions given for it belong to frame " +
                      prediction.frame.key());
  }
  const std::size_t n = prediction.num_lanes();
  const std::size_t m = prediction.num_traffic_elements();
  if (prediction.topology_lclc.size() != n * n) {
    throw input_error(where + ": topology_lclc has " +
                      std::to_string(prediction.topology_lclc.size()) + " entries, expected " +
                      std::to_string(n) + " x " + std::to_string(n));
  }
  if (prediction.topology_lcte.size() != n * m) {
    throw input_error(where + ": topology_lcte has " +
                      std::to_string(prediction.topology_lcte.size()) + " entries, expected " +
                      std::to_string(n) + " x " + std::to_string(m));
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (prediction.lanes[i].points.empty()) {
      throw input_error(where + ": predicted lane_centerline[" + std::to_string(i) +
                        "] has no points");
    }
  }
  if (!all_finite(prediction)) {
    throw input_error(where + ": the predictions hold a non-finite number");
  }
  for (std::size_t i = 0; i < gt.num_lanes(); ++i) {
    if (gt.lanes[i].empty()) {
      throw input_error(where + ": ground-truth lane_centerline[" + std::to_string(i) +
                        "] has no points");
    }
  }
  const std::size_t gt_n = gt.num_lanes();
  if (gt.topology_lclc.size() != gt_n * gt_n ||
      gt.topology_lcte.size() != gt_n * gt.num_traffic_elements() ||
      gt.traffic_element_attributes.size() != gt.num_traffic_elements()) {
    throw input_error(where + ": ground-truth topology does not fit its lanes and elements");
  }
}

struct FrameDistances {
  DistanceMatrix lanes;
  DistanceMatrix traffic_elements;
};

FrameDistances frame_distances(const FrameGroundTruth& gt, const FramePrediction& prediction) {
  std::vector<Polyline> lanes;
  lanes.reserve(prediction.lanes.size());
  for (const LanePrediction& lane : prediction.lanes) lanes.push_back(lane.points);
  std::vector<Box> boxes;
  boxes.reserve(prediction.traffic_elements.size());
  for (const TrafficElementPrediction& element : prediction.traffic_elements) {
    boxes.push_back(element.box);
  }
  return {relaxed_frechet_matrix(gt.lanes, lanes, kLaneThresholds.back()),
          iou_distance_matrix(gt.traffic_element_boxes, boxes)};
}

// Distances of every frame; frames are independent, so they are spread over the cores.
std::vector<FrameDistances> all_frame_distances(const std::vector<FrameGroundTruth>& gt,
                                                const std::vector<FramePrediction>& predictions) {
  std::vector<FrameDistances> distances(gt.size());
  const std::size_t num_workers = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1,
                                                          std::max<std::size_t>(1, gt.size()));
  std::vector<std::exception_ptr> errors(num_workers);
  std::vector<std::thread> workers;
  for (std::size_t w = 0; w < num_workers; ++w) {
    workers.emplace_back([&, w] {
      try {
        for (std::size_t f = w; f < gt.size(); f += num_workers) {
          distances[f] = frame_distances(gt[f], predictions[f]);
        }
      } catch (...) {
        errors[w] = std::current_exception();
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  return distances;
}

}  // namespace

EvaluationMetrics evaluate(const std::vector<FrameGroundTruth>& ground_truth,
                           const std::vector<FramePrediction>& predictions, MetricVersion version) {
  if (ground_truth.empty()) throw input_error("evaluation: no frames to evaluate");
  if (predictions.size() != ground_truth.size()) {
    throw input_error("evaluation: " + std::to_string(predictions.size()) +
                      " predicted frames for " + std::to_string(ground_truth.size()) +
                      " ground-truth frames");
  }
  for (std::size_t f = 0; f < ground_truth.size(); ++f)
    check_frame(ground_truth[f], predictions[f]);

  std::vector<FrameDistances> distances = all_frame_distances(ground_truth, predictions);
  std::vector<DistanceMatrix> lane_distances;
  std::vector<DistanceMatrix> element_distances;
  lane_distances.reserve(distances.size());
  element_distances.reserve(distances.size());
  for (FrameDistances& frame : distances) {
    lane_distances.push_back(std::move(frame.lanes));
    element_distances.push_back(std::move(frame.traffic_elements));
  }

  const LaneDetectionResult lanes = evaluate_lane_detection(predictions, lane_distances);
  const TrafficElementDetectionResult elements =
      evaluate_traffic_element_detection(ground_truth, predictions, element_distances);

  EvaluationMetrics metrics;
  metrics.version = version;
  metrics.det_l = lanes.det_l;
  metrics.det_t = elements.det_t;
  const TopologyScore top_ll = evaluate_topology_lclc(ground_truth, predictions, lanes, version);
  const TopologyScore top_lt =
      evaluate_topology_lcte(ground_truth, predictions, lanes, elements, version);
  metrics.top_ll = top_ll.value;
  metrics.top_lt = top_lt.value;
  metrics.ols = openlane_v2_score(lanes.det_l, elements.det_t, top_ll, top_lt);
  metrics.f_score = lane_f_score(ground_truth, predictions);
  std::copy(lanes.ap_per_threshold.begin(), lanes.ap_per_threshold.end(),
            metrics.det_l_per_threshold.begin());
  std::copy(elements.ap_per_attribute.begin(), elements.ap_per_attribute.end(),
            metrics.det_t_per_attribute.begin());
  metrics.num_frames = ground_truth.size();
  return metrics;
}

nlohmann::ordered_json metrics_to_json(const EvaluationMetrics& metrics) {
  nlohmann::ordered_json json;
  json["metric_version"] = to_string(metrics.version);
  json["DET_l"] = metrics.det_l;
  json["DET_t"] = metrics.det_t;
  json["TOP_ll"] = metrics.top_ll;
  json["TOP_lt"] = metrics.top_lt;
  json["OLS"] = metrics.ols;
  json["F-Score"] = metrics.f_score;
  nlohmann::ordered_json per_threshold = nlohmann::ordered_json::object();
  for (std::size_t t = 0; t < kLaneThresholds.size(); ++t) {
    char name[16];
    std::snprintf(name, sizeof(name), "%.1f", kLaneThresholds[t]);
    per_threshold[name] = metrics.det_l_per_threshold[t];
  }
  json["DET_l_per_threshold"] = per_threshold;
  nlohmann::ordered_json per_attribute = nlohmann::ordered_json::object();
  for (int a = 0; a < kNumAttributes; ++a) {
    per_attribute[std::to_string(a)] = metrics.det_t_per_attribute[static_cast<std::size_t>(a)];
  }
  json["DET_t_per_attribute"] = per_attribute;
  json["num_frames"] = metrics.num_frames;
  return json;
}

std::string format_metrics_table(const EvaluationMetrics& metrics) {
  std::string table;
  char line[128];
  const auto add = [&](const char* name, double value) {
    std::snprintf(line, sizeof(line), "%-24s %10.6f\n", name, value);
    table += line;
  };
  std::snprintf(line, sizeof(line), "OpenLane-V2 metrics (%s) over %zu frames\n",
                to_string(metrics.version), metrics.num_frames);
  table += line;
  add("OLS", metrics.ols);
  add("DET_l", metrics.det_l);
  add("DET_t", metrics.det_t);
  add("TOP_ll", metrics.top_ll);
  add("TOP_lt", metrics.top_lt);
  add("F-Score", metrics.f_score);
  for (std::size_t t = 0; t < kLaneThresholds.size(); ++t) {
    char name[32];
    std::snprintf(name, sizeof(name), "  DET_l @ %.1f m", kLaneThresholds[t]);
    add(name, metrics.det_l_per_threshold[t]);
  }
  for (int a = 0; a < kNumAttributes; ++a) {
    char name[48];
    std::snprintf(name, sizeof(name), "  DET_t %2d %s", a,
                  kTrafficElementAttributeNames[static_cast<size_t>(a)]);
    add(name, metrics.det_t_per_attribute[static_cast<std::size_t>(a)]);
  }
  return table;
}

const std::vector<std::string>& metric_names() {
  static const std::vector<std::string> names = {"OLS",    "DET_l",  "DET_t",
                                                 "TOP_ll", "TOP_lt", "F-Score"};
  return names;
}

std::string format_metrics_line(const EvaluationMetrics& metrics,
                                const std::vector<std::string>& names) {
  const nlohmann::ordered_json json = metrics_to_json(metrics);
  std::string line;
  for (const std::string& name : names) {
    char value[32];
    std::snprintf(value, sizeof(value), "%.4f", json.at(name).get<double>());
    line += (line.empty() ? "" : ", ") + name + " " + value;
  }
  return line;
}

}  // namespace olv2
