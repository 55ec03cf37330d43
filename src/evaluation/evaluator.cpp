#include "olv2/evaluation/evaluator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "olv2/data/frame.h"
#include "olv2/evaluation/frechet.h"
#include "olv2/evaluation/iou_distance.h"
#include "olv2/evaluation/lane_f_score.h"
#include "olv2/evaluation/lane_segment_distance.h"
#include "olv2/evaluation/lane_segment_metrics.h"
#include "olv2/evaluation/numpy_mean.h"
#include "olv2/evaluation/ols.h"
#include "olv2/evaluation/topology_metrics.h"
#include "olv2/util/error.h"
#include "olv2/util/parallel_for.h"

namespace olv2 {
namespace {

bool all_finite(const Polyline& line) {
  return std::all_of(line.begin(), line.end(), [](const std::array<float, 3>& point) {
    return std::all_of(point.begin(), point.end(), [](float v) { return std::isfinite(v); });
  });
}

bool all_finite(const FramePrediction& prediction) {
  const auto finite = [](float value) { return std::isfinite(value); };
  for (const LanePrediction& lane : prediction.lanes) {
    if (!finite(lane.confidence) || !all_finite(lane.points) || !all_finite(lane.left_laneline) ||
        !all_finite(lane.right_laneline)) {
      return false;
    }
  }
  for (const AreaPrediction& area : prediction.areas) {
    if (!finite(area.confidence) || !all_finite(area.points)) return false;
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

const char* task_name(FrameFormat task) {
  return task == FrameFormat::kLaneSegment ? "lane segments (v2.x)" : "lane centerlines (v1.x)";
}

void check_frame(const FrameGroundTruth& gt, const FramePrediction& prediction) {
  const std::string where = "frame " + gt.frame.key();
  if (prediction.frame != gt.frame) {
    throw input_error(where + ": the predictions given for it belong to frame " +
                      prediction.frame.key());
  }
  if (prediction.format != gt.format) {
    throw input_error(where + ": the ground truth has " + task_name(gt.format) +
                      ", the predictions " + task_name(prediction.format));
  }
  const bool segments = gt.format == FrameFormat::kLaneSegment;
  const std::string lane_kind = segments ? "lane_segment" : "lane_centerline";
  const std::string lane_lane = segments ? "topology_lsls" : "topology_lclc";
  const std::string lane_element = segments ? "topology_lste" : "topology_lcte";
  const std::size_t n = prediction.num_lanes();
  const std::size_t m = prediction.num_traffic_elements();
  if (prediction.topology_lclc.size() != n * n) {
    throw input_error(where + ": " + lane_lane + " has " +
                      std::to_string(prediction.topology_lclc.size()) + " entries, expected " +
                      std::to_string(n) + " x " + std::to_string(n));
  }
  if (prediction.topology_lcte.size() != n * m) {
    throw input_error(where + ": " + lane_element + " has " +
                      std::to_string(prediction.topology_lcte.size()) + " entries, expected " +
                      std::to_string(n) + " x " + std::to_string(m));
  }
  for (std::size_t i = 0; i < n; ++i) {
    const LanePrediction& lane = prediction.lanes[i];
    if (lane.points.empty() ||
        (segments && (lane.left_laneline.empty() || lane.right_laneline.empty()))) {
      throw input_error(where + ": predicted " + lane_kind + "[" + std::to_string(i) +
                        "] lacks points" + (segments ? " (centerline and both lanelines)" : ""));
    }
  }
  for (std::size_t i = 0; i < prediction.areas.size(); ++i) {
    if (prediction.areas[i].points.empty()) {
      throw input_error(where + ": predicted area[" + std::to_string(i) + "] has no points");
    }
  }
  if (!all_finite(prediction)) {
    throw input_error(where + ": the predictions hold a non-finite number");
  }
  const std::size_t gt_n = gt.num_lanes();
  for (std::size_t i = 0; i < gt_n; ++i) {
    if (gt.lanes[i].empty()) {
      throw input_error(where + ": ground-truth " + lane_kind + "[" + std::to_string(i) +
                        "] has no points");
    }
  }
  if (gt.topology_lclc.size() != gt_n * gt_n ||
      gt.topology_lcte.size() != gt_n * gt.num_traffic_elements() ||
      gt.traffic_element_attributes.size() != gt.num_traffic_elements()) {
    throw input_error(where + ": ground-truth topology does not fit its lanes and elements");
  }
  if (segments && (gt.left_lanelines.size() != gt_n || gt.right_lanelines.size() != gt_n ||
                   gt.area_categories.size() != gt.areas.size())) {
    throw input_error(where + ": ground-truth lane segments without both lanelines");
  }
}

struct FrameDistances {
  DistanceMatrix lanes;
  DistanceMatrix traffic_elements;
  DistanceMatrix areas;                 // lane segment
  DistanceMatrix lanesegnet_crossings;  // lane segment, LaneSegNet's ground truth
};

FrameDistances frame_distances(const FrameGroundTruth& gt, const FramePrediction& prediction) {
  std::vector<Box> boxes;
  boxes.reserve(prediction.traffic_elements.size());
  for (const TrafficElementPrediction& element : prediction.traffic_elements) {
    boxes.push_back(element.box);
  }
  FrameDistances distances;
  distances.traffic_elements = iou_distance_matrix(gt.traffic_element_boxes, boxes);
  if (gt.format == FrameFormat::kLaneSegment) {
    distances.lanes = lane_segment_distance_matrix(gt, prediction, kLaneThresholds.back());
    distances.areas = area_distance_matrix(gt.areas, prediction.areas);
    if (gt.lanesegnet_crossings) {
      distances.lanesegnet_crossings =
          area_distance_matrix(*gt.lanesegnet_crossings, prediction.areas);
    }
    return distances;
  }
  std::vector<Polyline> lanes;
  lanes.reserve(prediction.lanes.size());
  for (const LanePrediction& lane : prediction.lanes) lanes.push_back(lane.points);
  distances.lanes = relaxed_frechet_matrix(gt.lanes, lanes, kLaneThresholds.back());
  return distances;
}

template <typename Member>
std::vector<DistanceMatrix> take(std::vector<FrameDistances>& distances, Member member) {
  std::vector<DistanceMatrix> taken;
  taken.reserve(distances.size());
  for (FrameDistances& frame : distances) taken.push_back(std::move(frame.*member));
  return taken;
}

// The lane-segment task's additions: DET_a, UniScore and LaneSegNet's own numbers.
void add_lane_segment_metrics(const std::vector<FrameGroundTruth>& ground_truth,
                              const std::vector<FramePrediction>& predictions,
                              std::vector<FrameDistances>& distances, const TopologyScore& top_ll,
                              const TopologyScore& top_lt, float det_l, float det_t,
                              EvaluationMetrics& metrics) {
  std::vector<std::vector<int>> categories;
  for (const FrameGroundTruth& gt : ground_truth) categories.push_back(gt.area_categories);
  const AreaDetectionResult areas =
      evaluate_area_detection(categories, predictions, take(distances, &FrameDistances::areas));
  metrics.det_a = areas.det_a;
  for (std::size_t c = 0; c < areas.ap.size(); ++c) {
    std::copy(areas.ap[c].begin(), areas.ap[c].end(), metrics.det_a_per_category[c].begin());
  }
  metrics.score = openlane_v2_uniscore(det_l, areas.det_a, det_t, top_ll, top_lt);
  const bool lanesegnet_ground_truth =
      std::all_of(ground_truth.begin(), ground_truth.end(),
                  [](const FrameGroundTruth& gt) { return gt.lanesegnet_crossings.has_value(); });
  if (!lanesegnet_ground_truth) return;
  std::vector<std::vector<int>> crossings;
  for (const FrameGroundTruth& gt : ground_truth) {
    crossings.emplace_back(gt.lanesegnet_crossings->size(), static_cast<int>(kPedestrianCrossing));
  }
  const std::array<float, kAreaThresholds.size()> ap_ped =
      area_aps(crossings, predictions, take(distances, &FrameDistances::lanesegnet_crossings),
               static_cast<int>(kPedestrianCrossing));
  LaneSegNetMetrics lanesegnet;
  lanesegnet.ap_ls = det_l;
  const float mean_ap_ped = numpy_mean(std::vector<float>(ap_ped.begin(), ap_ped.end()));
  lanesegnet.ap_ped = mean_ap_ped;
  lanesegnet.top_lsls = top_ll.value;
  lanesegnet.map = (det_l + mean_ap_ped) / 2.0f;
  metrics.lanesegnet = lanesegnet;
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
  const FrameFormat task = ground_truth.front().format;
  for (const FrameGroundTruth& gt : ground_truth) {
    if (gt.format != task) {
      throw input_error("evaluation: frame " + gt.frame.key() + " has " + task_name(gt.format) +
                        ", frame " + ground_truth.front().frame.key() + " " + task_name(task) +
                        "; one evaluation scores one task");
    }
  }
  for (std::size_t f = 0; f < ground_truth.size(); ++f)
    check_frame(ground_truth[f], predictions[f]);
  if (task == FrameFormat::kLaneSegment && version != MetricVersion::kV1_1) {
    throw input_error(std::string("evaluation: metric version ") + to_string(version) +
                      " is one of the centerline task's TOP definitions; the lane-segment task "
                      "has the devkit 2.x's only (give v1.1 or nothing)");
  }

  std::vector<FrameDistances> distances(ground_truth.size());
  parallel_for(ground_truth.size(), ground_truth.size(), [&](std::size_t f) {
    distances[f] = frame_distances(ground_truth[f], predictions[f]);
  });
  const LaneDetectionResult lanes =
      evaluate_lane_detection(predictions, take(distances, &FrameDistances::lanes));
  const TrafficElementDetectionResult elements = evaluate_traffic_element_detection(
      ground_truth, predictions, take(distances, &FrameDistances::traffic_elements));

  EvaluationMetrics metrics;
  metrics.task = task;
  metrics.version = version;
  metrics.det_l = lanes.det_l;
  metrics.det_t = elements.det_t;
  const TopologyScore top_ll = evaluate_topology_lclc(ground_truth, predictions, lanes, version);
  const TopologyScore top_lt =
      evaluate_topology_lcte(ground_truth, predictions, lanes, elements, version);
  metrics.top_ll = top_ll.value;
  metrics.top_lt = top_lt.value;
  if (task == FrameFormat::kLaneSegment) {
    add_lane_segment_metrics(ground_truth, predictions, distances, top_ll, top_lt, lanes.det_l,
                             elements.det_t, metrics);
  } else {
    metrics.score = openlane_v2_score(lanes.det_l, elements.det_t, top_ll, top_lt);
    metrics.f_score = lane_f_score(ground_truth, predictions);
  }
  std::copy(lanes.ap_per_threshold.begin(), lanes.ap_per_threshold.end(),
            metrics.det_l_per_threshold.begin());
  std::copy(elements.ap_per_attribute.begin(), elements.ap_per_attribute.end(),
            metrics.det_t_per_attribute.begin());
  metrics.num_frames = ground_truth.size();
  return metrics;
}

const char* metric_set_name(FrameFormat task) {
  return task == FrameFormat::kLaneSegment ? "OpenLane-V2 UniScore" : "OpenLane-V2 Score";
}

namespace {

std::string threshold_name(double threshold) {
  char name[16];
  std::snprintf(name, sizeof(name), "%.1f", threshold);
  return name;
}

// LaneSegNet's own numbers, which the JSON and the table keep apart from the devkit's set.
bool is_lanesegnet_metric(const std::string& name) {
  return name == "mAP" || name == "AP_ls" || name == "AP_ped" || name == "TOP_lsls";
}

}  // namespace

nlohmann::ordered_json metrics_to_json(const EvaluationMetrics& metrics) {
  nlohmann::ordered_json json;
  json["metric_set"] = metric_set_name(metrics.task);
  const bool segments = metrics.task == FrameFormat::kLaneSegment;
  if (!segments) json["metric_version"] = to_string(metrics.version);
  for (const auto& [name, value] : headline_metrics(metrics)) {
    if (!is_lanesegnet_metric(name)) json[name] = value;
  }
  nlohmann::ordered_json per_threshold = nlohmann::ordered_json::object();
  for (std::size_t t = 0; t < kLaneThresholds.size(); ++t) {
    per_threshold[threshold_name(kLaneThresholds[t])] = metrics.det_l_per_threshold[t];
  }
  json["DET_l_per_threshold"] = per_threshold;
  if (segments) {
    nlohmann::ordered_json per_category = nlohmann::ordered_json::object();
    for (std::size_t c = 0; c < kAreaCategoryNames.size(); ++c) {
      nlohmann::ordered_json aps = nlohmann::ordered_json::object();
      for (std::size_t t = 0; t < kAreaThresholds.size(); ++t) {
        aps[threshold_name(kAreaThresholds[t])] = metrics.det_a_per_category[c][t];
      }
      per_category[kAreaCategoryNames[c]] = aps;
    }
    json["DET_a_per_category"] = per_category;
  }
  nlohmann::ordered_json per_attribute = nlohmann::ordered_json::object();
  for (int a = 0; a < kNumAttributes; ++a) {
    per_attribute[std::to_string(a)] = metrics.det_t_per_attribute[static_cast<std::size_t>(a)];
  }
  json["DET_t_per_attribute"] = per_attribute;
  if (metrics.lanesegnet) {
    json["LaneSegNet"] = {{"mAP", metrics.lanesegnet->map},
                          {"AP_ls", metrics.lanesegnet->ap_ls},
                          {"AP_ped", metrics.lanesegnet->ap_ped},
                          {"TOP_lsls", metrics.lanesegnet->top_lsls}};
  }
  json["num_frames"] = metrics.num_frames;
  return json;
}

std::string format_metrics_table(const EvaluationMetrics& metrics) {
  std::string table;
  char line[128];
  const auto add = [&](const std::string& name, double value) {
    std::snprintf(line, sizeof(line), "%-36s %10.6f\n", name.c_str(), value);
    table += line;
  };
  const bool segments = metrics.task == FrameFormat::kLaneSegment;
  if (segments) {
    std::snprintf(line, sizeof(line), "%s (devkit 2.x lane segments) over %zu frames\n",
                  metric_set_name(metrics.task), metrics.num_frames);
  } else {
    std::snprintf(line, sizeof(line), "%s (%s) over %zu frames\n", metric_set_name(metrics.task),
                  to_string(metrics.version), metrics.num_frames);
  }
  table += line;
  const std::vector<std::pair<std::string, double>> headline = headline_metrics(metrics);
  // The set's score first, then its parts, then the breakdowns.
  for (auto it = headline.rbegin(); it != headline.rend(); ++it) {
    if (it->first == "OLS" || it->first == "UniScore") add(it->first, it->second);
  }
  for (const auto& [name, value] : headline) {
    if (name != "OLS" && name != "UniScore" && !is_lanesegnet_metric(name)) add(name, value);
  }
  for (std::size_t t = 0; t < kLaneThresholds.size(); ++t) {
    add("  DET_l @ " + threshold_name(kLaneThresholds[t]) + " m", metrics.det_l_per_threshold[t]);
  }
  if (segments) {
    for (std::size_t c = 0; c < kAreaCategoryNames.size(); ++c) {
      for (std::size_t t = 0; t < kAreaThresholds.size(); ++t) {
        add(std::string("  DET_a ") + kAreaCategoryNames[c] + " @ " +
                threshold_name(kAreaThresholds[t]) + " m",
            metrics.det_a_per_category[c][t]);
      }
    }
  }
  for (int a = 0; a < kNumAttributes; ++a) {
    char name[48];
    std::snprintf(name, sizeof(name), "  DET_t %2d %s", a,
                  kTrafficElementAttributeNames[static_cast<size_t>(a)]);
    add(name, metrics.det_t_per_attribute[static_cast<std::size_t>(a)]);
  }
  if (metrics.lanesegnet) {
    table += "LaneSegNet's own metrics (lanesegnet_evaluate)\n";
    add("mAP", metrics.lanesegnet->map);
    add("AP_ls", metrics.lanesegnet->ap_ls);
    add("AP_ped", metrics.lanesegnet->ap_ped);
    add("TOP_lsls", metrics.lanesegnet->top_lsls);
  }
  return table;
}

std::vector<std::pair<std::string, double>> headline_metrics(const EvaluationMetrics& metrics) {
  if (metrics.task == FrameFormat::kLaneCenterline) {
    return {{"DET_l", metrics.det_l},   {"DET_t", metrics.det_t}, {"TOP_ll", metrics.top_ll},
            {"TOP_lt", metrics.top_lt}, {"OLS", metrics.score},   {"F-Score", metrics.f_score}};
  }
  std::vector<std::pair<std::string, double>> headline;
  if (metrics.lanesegnet) {
    headline = {{"mAP", metrics.lanesegnet->map},
                {"AP_ls", metrics.lanesegnet->ap_ls},
                {"AP_ped", metrics.lanesegnet->ap_ped},
                {"TOP_lsls", metrics.lanesegnet->top_lsls}};
  }
  headline.insert(headline.end(), {{"DET_l", metrics.det_l},
                                   {"DET_a", metrics.det_a},
                                   {"DET_t", metrics.det_t},
                                   {"TOP_ll", metrics.top_ll},
                                   {"TOP_lt", metrics.top_lt},
                                   {"UniScore", metrics.score}});
  return headline;
}

const std::vector<std::string>& metric_names() {
  static const std::vector<std::string> names = {"OLS",    "DET_l",   "DET_t",    "TOP_ll",
                                                 "TOP_lt", "F-Score", "UniScore", "DET_a",
                                                 "mAP",    "AP_ls",   "AP_ped",   "TOP_lsls"};
  return names;
}

double headline_metric(const EvaluationMetrics& metrics, const std::string& name,
                       const std::string& where) {
  std::string available;
  for (const auto& [metric, value] : headline_metrics(metrics)) {
    if (metric == name) return value;
    available += (available.empty() ? "" : ", ") + metric;
  }
  throw input_error(where + ": " + name + " is not a metric of the " +
                    metric_set_name(metrics.task) +
                    " set of this dataset (its metrics: " + available + ")");
}

void require_metric_of(CollectionKind kind, const std::string& name, const std::string& where) {
  EvaluationMetrics metrics;
  metrics.task = frame_format(kind);
  if (kind == CollectionKind::kLaneSegNet) metrics.lanesegnet.emplace();
  headline_metric(metrics, name, where);
}

std::string format_metrics_line(const EvaluationMetrics& metrics,
                                const std::vector<std::string>& names) {
  std::string line;
  for (const std::string& name : names) {
    char value[32];
    std::snprintf(value, sizeof(value), "%.4f", headline_metric(metrics, name, "the metrics line"));
    line += (line.empty() ? "" : ", ") + name + " " + value;
  }
  return line;
}

}  // namespace olv2
