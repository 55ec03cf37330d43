#include "olv2/visualization/figure_content.h"

namespace olv2 {

FigureContent figure_content(const Frame& frame, const FramePrediction* prediction,
                             float score_threshold) {
  FigureContent content;
  content.frame = &frame;
  content.prediction = prediction;
  if (prediction == nullptr) return content;
  for (size_t i = 0; i < prediction->lanes.size(); ++i) {
    if (prediction->lanes[i].confidence >= score_threshold) content.shown_lanes.push_back(i);
  }
  for (size_t j = 0; j < prediction->traffic_elements.size(); ++j) {
    if (prediction->traffic_elements[j].confidence >= score_threshold) {
      content.shown_elements.push_back(j);
    }
  }
  return content;
}

std::vector<std::array<float, 3>> lane_points(const LaneCenterline& lane) {
  std::vector<std::array<float, 3>> points(static_cast<size_t>(lane.num_points()));
  for (size_t k = 0; k < points.size(); ++k) {
    points[k] = {lane.points[3 * k], lane.points[3 * k + 1], lane.points[3 * k + 2]};
  }
  return points;
}

}  // namespace olv2
