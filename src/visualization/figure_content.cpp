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
  for (size_t k = 0; k < prediction->areas.size(); ++k) {
    if (prediction->areas[k].confidence >= score_threshold) content.shown_areas.push_back(k);
  }
  for (size_t j = 0; j < prediction->traffic_elements.size(); ++j) {
    if (prediction->traffic_elements[j].confidence >= score_threshold) {
      content.shown_elements.push_back(j);
    }
  }
  return content;
}

EgoPolyline polyline_points(const std::vector<float>& points) {
  EgoPolyline polyline(points.size() / 3);
  for (size_t k = 0; k < polyline.size(); ++k) {
    polyline[k] = {points[3 * k], points[3 * k + 1], points[3 * k + 2]};
  }
  return polyline;
}

std::vector<EgoPolyline> ground_truth_centerlines(const Frame& frame) {
  std::vector<EgoPolyline> lines;
  if (frame.format == FrameFormat::kLaneSegment) {
    for (const LaneSegment& segment : frame.lane_segments) {
      lines.push_back(polyline_points(segment.centerline));
    }
  } else {
    for (const LaneCenterline& lane : frame.lanes) lines.push_back(polyline_points(lane.points));
  }
  return lines;
}

bool ground_truth_lane_edge(const Frame& frame, size_t from, size_t to) {
  return frame.format == FrameFormat::kLaneSegment ? frame.lsls(from, to) != 0
                                                   : frame.lclc(from, to) != 0;
}

bool ground_truth_lane_element_edge(const Frame& frame, size_t lane, size_t element) {
  return frame.format == FrameFormat::kLaneSegment ? frame.lste(lane, element) != 0
                                                   : frame.lcte(lane, element) != 0;
}

}  // namespace olv2
