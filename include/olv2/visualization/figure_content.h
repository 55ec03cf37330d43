#pragma once
// What a frame figure shows: the ground truth and the predictions above the score threshold.
#include <array>
#include <cstddef>
#include <vector>

#include "olv2/data/frame.h"
#include "olv2/data/frame_prediction.h"

namespace olv2 {

// What one figure shows: a frame's ground truth and, when there is one, its prediction, of
// which only the lanes (v2.x: lane segments and areas) and traffic elements scoring at least the
// threshold are drawn (and the
// topology edges between those, where the predicted probability is above 0.5).
struct FigureContent {
  const Frame* frame = nullptr;
  const FramePrediction* prediction = nullptr;  // null: ground truth only
  std::vector<size_t> shown_lanes;              // indices into prediction->lanes
  std::vector<size_t> shown_elements;           // indices into prediction->traffic_elements
  std::vector<size_t> shown_areas;              // v2.x: indices into prediction->areas
};

FigureContent figure_content(const Frame& frame, const FramePrediction* prediction,
                             float score_threshold);

// A polyline of ego points.
using EgoPolyline = std::vector<std::array<float, 3>>;

// Row-major n x 3 floats (a frame's centerline, laneline or area) as a polyline.
EgoPolyline polyline_points(const std::vector<float>& points);

// A frame's ground-truth lanes as the figures draw them: its lane centerlines (v1.x) or its lane
// segments' centerlines (v2.x).
std::vector<EgoPolyline> ground_truth_centerlines(const Frame& frame);

// The ground-truth topology among those lanes (topology_lclc or topology_lsls) and between them
// and the traffic elements (topology_lcte or topology_lste).
bool ground_truth_lane_edge(const Frame& frame, size_t from, size_t to);
bool ground_truth_lane_element_edge(const Frame& frame, size_t lane, size_t element);

// Whether a predicted topology probability counts as an edge (the metrics' threshold).
inline bool is_predicted_edge(float probability) { return probability > 0.5f; }

}  // namespace olv2
