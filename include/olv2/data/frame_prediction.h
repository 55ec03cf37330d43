#pragma once
// What a detector predicts for one OpenLane-V2 frame, as the results file stores it and evaluation
// reads it: v1.x lane centerlines, or v2.x lane segments and areas.
#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "olv2/data/frame.h"

namespace olv2 {

// Identifies one OpenLane-V2 frame exactly as on disk:
// `<split>/<segment_id>/info/<timestamp>.json`. All three parts are kept
// verbatim as strings (segment ids keep their leading zeros).
struct FrameId {
  std::string split;
  std::string segment_id;
  std::string timestamp;

  // "<split>/<segment_id>/<timestamp>", the key of the results file.
  std::string key() const { return split + "/" + segment_id + "/" + timestamp; }

  friend bool operator==(const FrameId& a, const FrameId& b) {
    return std::tie(a.split, a.segment_id, a.timestamp) ==
           std::tie(b.split, b.segment_id, b.timestamp);
  }
  friend bool operator!=(const FrameId& a, const FrameId& b) { return !(a == b); }
  friend bool operator<(const FrameId& a, const FrameId& b) {
    return std::tie(a.split, a.segment_id, a.timestamp) <
           std::tie(b.split, b.segment_id, b.timestamp);
  }
};

// One predicted lane: an ordered polyline in ego metres (x forward, y left, z up), in driving
// direction. v1.x: the lane centerline (the detectors write 11 points, their Bézier curve at
// t = 0, 0.1, ..., 1). v2.x: the lane segment's centerline, with its left and right boundaries
// and their line types (kLaneLineTypeNames); LaneSegNet writes 10 points per line. Evaluation
// accepts any number of points >= 1.
struct LanePrediction {
  LanePrediction() = default;
  LanePrediction(std::vector<std::array<float, 3>> centerline, float score)
      : points(std::move(centerline)), confidence(score) {}

  std::vector<std::array<float, 3>> points;
  float confidence = 0.0f;
  std::vector<std::array<float, 3>> left_laneline;   // v2.x only
  std::vector<std::array<float, 3>> right_laneline;  // v2.x only
  int left_laneline_type = 0;                        // v2.x only
  int right_laneline_type = 0;                       // v2.x only
};

// One predicted area (v2.x): a pedestrian crossing or a road boundary (`category`, from 1:
// kAreaCategoryNames), an ordered polyline in ego metres.
struct AreaPrediction {
  std::vector<std::array<float, 3>> points;
  int category = static_cast<int>(kPedestrianCrossing);
  float confidence = 0.0f;
};

// One predicted traffic element: a box in raw (unresized) front-camera image
// pixels.
struct TrafficElementPrediction {
  std::array<float, 4> box{};  // x1, y1, x2, y2 with x1 <= x2, y1 <= y2
  int attribute = 0;           // 0..12 (0 unknown, 1 red, 2 green, ...; spec/evaluation.md §1.1)
  float confidence = 0.0f;
};

// Everything a detector predicts for one frame; exactly what the results file
// stores. Topology matrices are row-major probabilities in [0, 1]; an edge
// counts when > 0.5. In v2.x (`format` kLaneSegment) `lanes` are the lane segments and the two
// matrices are the devkit's `topology_lsls` and `topology_lste`.
struct FramePrediction {
  FrameId frame;
  FrameFormat format = FrameFormat::kLaneCenterline;
  std::vector<LanePrediction> lanes;
  std::vector<AreaPrediction> areas;  // v2.x only
  std::vector<TrafficElementPrediction> traffic_elements;
  std::vector<float> topology_lclc;  // [N * N], [i][j]: lane i's end connects to lane j's start
  std::vector<float> topology_lcte;  // [N * M], [i][j]: traffic element j governs lane i

  std::size_t num_lanes() const { return lanes.size(); }
  std::size_t num_traffic_elements() const { return traffic_elements.size(); }
  float lclc(std::size_t lane_from, std::size_t lane_to) const {
    return topology_lclc[lane_from * lanes.size() + lane_to];
  }
  float lcte(std::size_t lane, std::size_t element) const {
    return topology_lcte[lane * traffic_elements.size() + element];
  }
  std::vector<float> lane_confidences() const {
    std::vector<float> confidences;
    confidences.reserve(lanes.size());
    for (const LanePrediction& lane : lanes) confidences.push_back(lane.confidence);
    return confidences;
  }
  std::vector<float> traffic_element_confidences() const {
    std::vector<float> confidences;
    confidences.reserve(traffic_elements.size());
    for (const TrafficElementPrediction& element : traffic_elements) {
      confidences.push_back(element.confidence);
    }
    return confidences;
  }
};

}  // namespace olv2
