#pragma once
// The detection metrics of OpenLane-V2: DET_l over lane thresholds and DET_t over traffic-element
// attributes.
#include <array>
#include <vector>

#include "olv2/data/frame_prediction.h"
#include "olv2/evaluation/distance_matrix.h"
#include "olv2/evaluation/ground_truth.h"
#include "olv2/evaluation/matching.h"

namespace olv2 {

// Relaxed-Fréchet thresholds of DET_l, in metres.
inline constexpr std::array<double, 3> kLaneThresholds = {1.0, 2.0, 3.0};
// IoU-distance threshold of DET_t: a match needs IoU > 0.25.
inline constexpr double kTrafficElementThreshold = 0.75;
// Traffic element attributes 0..12; DET_t averages over all of them.
inline constexpr int kNumAttributes = 13;

struct LaneDetectionResult {
  std::array<float, kLaneThresholds.size()> ap_per_threshold{};
  float det_l = 0.0f;  // float32 mean of the per-threshold APs
  // [threshold][frame]: the matching each TOP metric projects onto the ground-truth graph.
  std::array<std::vector<FrameMatch>, kLaneThresholds.size()> matches;
};

struct TrafficElementDetectionResult {
  std::array<float, kNumAttributes> ap_per_attribute{};
  float det_t = 0.0f;  // float32 mean over all 13 attributes
  // Attribute-agnostic matching at kTrafficElementThreshold, per frame, used by TOP_lt, and its
  // AP (part of no metric; useful when debugging).
  std::vector<FrameMatch> matches;
  float attribute_agnostic_ap = 0.0f;
};

// DET_l from each frame's relaxed-Fréchet matrix (see relaxed_frechet_matrix).
LaneDetectionResult evaluate_lane_detection(const std::vector<FramePrediction>& predictions,
                                            const std::vector<DistanceMatrix>& lane_distances);

// DET_t from each frame's IoU-distance matrix. Ground truth and predictions are filtered to one
// attribute at a time; an attribute absent from both counts AP 1. Predicted attributes outside
// 0..12 take part only in the attribute-agnostic matching.
TrafficElementDetectionResult evaluate_traffic_element_detection(
    const std::vector<FrameGroundTruth>& ground_truth,
    const std::vector<FramePrediction>& predictions,
    const std::vector<DistanceMatrix>& traffic_element_distances);

}  // namespace olv2
