#include "olv2/visualization/front_panel.h"

#include <cmath>
#include <cstdio>
#include <opencv2/imgproc.hpp>
#include <optional>

#include "olv2/visualization/drawing.h"
#include "olv2/visualization/palette.h"

namespace olv2 {

namespace {

constexpr double kNearPlaneM = 0.1;
constexpr int kBoxThickness = 3;
constexpr int kFrontLaneThickness = 2;

struct CameraPoint {
  double x, y, z;  // camera axes: x right, y down, z forward
};

// The point halfway along the visible pieces (by point count), where a link attaches.
std::optional<cv::Point2d> link_anchor(const std::vector<std::vector<cv::Point2d>>& pieces,
                                       cv::Size panel) {
  std::vector<cv::Point2d> inside;
  for (const auto& piece : pieces) {
    for (const cv::Point2d& p : piece) {
      if (p.x >= 0 && p.y >= 0 && p.x < panel.width && p.y < panel.height) inside.push_back(p);
    }
  }
  if (inside.empty()) return std::nullopt;
  return inside[inside.size() / 2];
}

cv::Point2d box_anchor(const FrontView& view, double x1, double x2, double y2) {
  return view.image_to_panel(0.5 * (x1 + x2), y2);
}

void draw_box(cv::Mat& panel, const FrontView& view, const std::array<float, 4>& box,
              const cv::Scalar& colour, bool dashed) {
  const cv::Point2d top_left = view.image_to_panel(box[0], box[1]);
  const cv::Point2d bottom_right = view.image_to_panel(box[2], box[3]);
  if (dashed) {
    drawing::dashed_rectangle(panel, top_left, bottom_right, colour, kBoxThickness - 1);
  } else {
    cv::rectangle(panel, cv::Point(static_cast<int>(top_left.x), static_cast<int>(top_left.y)),
                  cv::Point(static_cast<int>(bottom_right.x), static_cast<int>(bottom_right.y)),
                  colour, kBoxThickness, cv::LINE_AA);
  }
}

void draw_front_lane(cv::Mat& panel, const std::vector<std::vector<cv::Point2d>>& pieces,
                     const cv::Scalar& colour, bool dashed) {
  for (const auto& piece : pieces) {
    if (dashed) {
      drawing::dashed_polyline(panel, piece, colour, kFrontLaneThickness);
    } else {
      drawing::polyline(panel, piece, colour, kFrontLaneThickness);
    }
  }
}

void draw_link(cv::Mat& panel, cv::Point2d from, std::optional<cv::Point2d> to,
               const cv::Scalar& colour, bool dashed) {
  if (!to) return;
  if (dashed) {
    drawing::dashed_polyline(panel, {from, *to}, colour, 1, 5.0, 4.0);
  } else {
    drawing::line(panel, from, *to, colour, 1);
  }
  cv::circle(panel, cv::Point(static_cast<int>(to->x), static_cast<int>(to->y)), 3, colour,
             cv::FILLED, cv::LINE_AA);
}

}  // namespace

FrontView::FrontView(const CameraInfo& camera, cv::Size image_size, int height)
    : camera_(camera),
      scale_(static_cast<double>(height) / image_size.height),
      size_(static_cast<int>(std::lround(image_size.width * scale_)), height) {}

std::vector<std::vector<cv::Point2d>> FrontView::project(
    const std::vector<std::array<float, 3>>& points) const {
  const auto& R = camera_.R;
  const auto& t = camera_.t;
  const auto& K = camera_.K;
  const auto to_camera = [&](const std::array<float, 3>& p) {
    const double d[3] = {p[0] - t[0], p[1] - t[1], p[2] - t[2]};
    // R maps camera to ego, so R^T maps ego to camera.
    return CameraPoint{R[0] * d[0] + R[3] * d[1] + R[6] * d[2],
                       R[1] * d[0] + R[4] * d[1] + R[7] * d[2],
                       R[2] * d[0] + R[5] * d[1] + R[8] * d[2]};
  };
  const auto to_panel = [&](const CameraPoint& c) {
    const double u = (K[0] * c.x + K[1] * c.y + K[2] * c.z) / c.z;
    const double v = (K[3] * c.x + K[4] * c.y + K[5] * c.z) / c.z;
    return image_to_panel(u, v);
  };
  const auto on_near_plane = [](const CameraPoint& a, const CameraPoint& b) {
    const double s = (kNearPlaneM - a.z) / (b.z - a.z);
    return CameraPoint{a.x + s * (b.x - a.x), a.y + s * (b.y - a.y), kNearPlaneM};
  };

  std::vector<std::vector<cv::Point2d>> pieces;
  std::vector<cv::Point2d> piece;
  const auto close_piece = [&] {
    if (piece.size() >= 2) pieces.push_back(piece);
    piece.clear();
  };
  CameraPoint previous{};
  for (size_t k = 0; k < points.size(); ++k) {
    const CameraPoint c = to_camera(points[k]);
    const bool visible = c.z >= kNearPlaneM;
    if (k > 0) {
      const bool was_visible = previous.z >= kNearPlaneM;
      if (visible && !was_visible) piece.push_back(to_panel(on_near_plane(previous, c)));
      if (!visible && was_visible) {
        piece.push_back(to_panel(on_near_plane(previous, c)));
        close_piece();
      }
    }
    if (visible) piece.push_back(to_panel(c));
    previous = c;
  }
  close_piece();
  return pieces;
}

cv::Mat draw_front_panel(const FigureContent& content, const cv::Mat& image,
                         const FrontView& view) {
  cv::Mat panel;
  cv::resize(image, panel, view.size(), 0, 0, cv::INTER_AREA);
  if (panel.channels() == 1) cv::cvtColor(panel, panel, cv::COLOR_GRAY2BGR);
  const Frame& frame = *content.frame;
  const FramePrediction* prediction = content.prediction;

  std::vector<std::vector<std::vector<cv::Point2d>>> truth;
  for (const EgoPolyline& lane : ground_truth_centerlines(frame)) {
    truth.push_back(view.project(lane));
  }
  std::vector<std::vector<std::vector<cv::Point2d>>> predicted(
      prediction != nullptr ? prediction->lanes.size() : 0);
  for (size_t i : content.shown_lanes) predicted[i] = view.project(prediction->lanes[i].points);

  for (const auto& pieces : truth)
    draw_front_lane(panel, pieces, palette::ground_truth_lane(), false);
  for (size_t i : content.shown_lanes) {
    draw_front_lane(panel, predicted[i], palette::predicted_lane(), true);
  }

  for (size_t k = 0; k < frame.traffic_elements.size(); ++k) {
    const TrafficElement& element = frame.traffic_elements[k];
    const cv::Scalar colour = palette::traffic_element(static_cast<int>(element.attribute));
    for (size_t i = 0; i < truth.size(); ++i) {
      if (ground_truth_lane_element_edge(frame, i, k)) {
        draw_link(panel, box_anchor(view, element.x1, element.x2, element.y2),
                  link_anchor(truth[i], panel.size()), colour, false);
      }
    }
  }
  for (size_t j : content.shown_elements) {
    const TrafficElementPrediction& element = prediction->traffic_elements[j];
    const cv::Scalar colour = palette::traffic_element(element.attribute);
    for (size_t i : content.shown_lanes) {
      if (is_predicted_edge(prediction->lcte(i, j))) {
        draw_link(panel, box_anchor(view, element.box[0], element.box[2], element.box[3]),
                  link_anchor(predicted[i], panel.size()), colour, true);
      }
    }
  }

  for (const TrafficElement& element : frame.traffic_elements) {
    draw_box(panel, view, {element.x1, element.y1, element.x2, element.y2},
             palette::traffic_element(static_cast<int>(element.attribute)), false);
  }
  for (size_t j : content.shown_elements) {
    const TrafficElementPrediction& element = prediction->traffic_elements[j];
    const cv::Scalar colour = palette::traffic_element(element.attribute);
    draw_box(panel, view, element.box, colour, true);
    char score[16];
    std::snprintf(score, sizeof(score), "%.2f", element.confidence);
    const cv::Point2d corner = view.image_to_panel(element.box[0], element.box[1]);
    drawing::text(panel, score, {static_cast<int>(corner.x), static_cast<int>(corner.y) - 4},
                  colour, 0.4);
  }
  return panel;
}

}  // namespace olv2
