#pragma once
// What a frame figure shows: the ground truth and the predictions above the score threshold.
#include <array>
#include <cstddef>
#include <vector>

#include "olv2/data/frame.h"
#include "olv2/data/frame_prediction.h"

namespace olv2 {

// What one figure shows: a frame's ground truth and, when there is one, its prediction, of
// which only the lanes and traffic elements scoring at least the threshold are drawn (and the
// topology edges between those, where the predicted probability is above 0.5).
struct FigureContent {
  const Frame* frame = nullptr;
  const FramePrediction* prediction = nullptr;  // null: ground truth only
  std::vector<size_t> shown_lanes;              // indices into prediction->lanes
  std::vector<size_t> shown_elements;           // indices into prediction->traffic_elements
};

FigureContent figure_content(const Frame& frame, const FramePrediction* prediction,
                             float score_threshold);

// A ground-truth centerline as a polyline of ego points.
std::vector<std::array<float, 3>> lane_points(const LaneCenterline& lane);

// Whether a predicted topology probability counts as an edge (the metrics' threshold).
inline bool is_predicted_edge(float probability) { return probability > 0.5f; }

}  // namespace olv2
