#include "olv2/visualization/bev_panel.h"

#include <cmath>
#include <opencv2/imgproc.hpp>

#include "olv2/util/error.h"
#include "olv2/visualization/drawing.h"
#include "olv2/visualization/palette.h"

namespace olv2 {

namespace {

constexpr double kGridStepM = 10.0;
constexpr double kEgoLengthM = 4.6;  // a mid-size car, its rear axle near the ego origin
constexpr double kEgoWidthM = 1.9;
constexpr int kBevLaneThickness = 3;
constexpr int kBevEdgeThickness = 1;
constexpr double kEdgeBend = 0.2;  // the arc's control point off the chord, per chord length
constexpr int kEdgeArcPoints = 16;
constexpr int kBevBoundaryThickness = 2;
constexpr int kBevAreaThickness = 3;
constexpr int kLineTypeSolid = 1;  // kLaneLineTypeNames
constexpr int kLineTypeDash = 2;

std::vector<cv::Point2d> to_pixels(const BevView& view,
                                   const std::vector<std::array<float, 3>>& points) {
  std::vector<cv::Point2d> pixels;
  pixels.reserve(points.size());
  for (const auto& p : points) pixels.push_back(view.to_pixel(p[0], p[1]));
  return pixels;
}

// The point halfway along a polyline's length, and one a little before it (for an arrow).
std::pair<cv::Point2d, cv::Point2d> middle_of(const std::vector<cv::Point2d>& line) {
  double total = 0.0;
  for (size_t i = 1; i < line.size(); ++i) total += cv::norm(line[i] - line[i - 1]);
  if (line.size() < 2 || total <= 0.0) return {line.front(), line.front()};
  const auto at = [&](double target) {
    double walked = 0.0;
    for (size_t i = 1; i < line.size(); ++i) {
      const double step = cv::norm(line[i] - line[i - 1]);
      if (walked + step >= target && step > 0.0) {
        return line[i - 1] + (line[i] - line[i - 1]) * ((target - walked) / step);
      }
      walked += step;
    }
    return line.back();
  };
  return {at(std::max(0.0, 0.5 * total - 6.0)), at(0.5 * total)};
}

void draw_grid(cv::Mat& panel, const BevView& view) {
  const BevArea& r = view.range();
  const double first_x = std::ceil(r.x_min / kGridStepM) * kGridStepM;
  for (double x = first_x; x <= r.x_max + 1e-9; x += kGridStepM) {
    drawing::line(panel, view.to_pixel(x, r.y_max), view.to_pixel(x, r.y_min), palette::grid(), 1);
    const cv::Point2d label = view.to_pixel(x, r.y_min);
    const std::string text = std::to_string(static_cast<int>(x)) + " m";
    const int width = cv::getTextSize(text, cv::FONT_HERSHEY_SIMPLEX, 0.35, 1, nullptr).width;
    drawing::text(panel, text,
                  {static_cast<int>(label.x) - width - 3, static_cast<int>(label.y) - 3},
                  palette::range(), 0.35);
  }
  const double first_y = std::ceil(r.y_min / kGridStepM) * kGridStepM;
  for (double y = first_y; y <= r.y_max + 1e-9; y += kGridStepM) {
    drawing::line(panel, view.to_pixel(r.x_min, y), view.to_pixel(r.x_max, y), palette::grid(), 1);
  }
  const cv::Point2d top_left = view.to_pixel(r.x_max, r.y_max);
  const cv::Point2d bottom_right = view.to_pixel(r.x_min, r.y_min);
  cv::rectangle(panel, cv::Point(static_cast<int>(top_left.x), static_cast<int>(top_left.y)),
                cv::Point(static_cast<int>(bottom_right.x), static_cast<int>(bottom_right.y)),
                palette::range(), 1, cv::LINE_AA);
}

void draw_ego(cv::Mat& panel, const BevView& view) {
  const double front = kEgoLengthM * 0.75, back = -kEgoLengthM * 0.25, half = kEgoWidthM / 2;
  const auto p = [&](double x, double y) {
    const cv::Point2d q = view.to_pixel(x, y);
    return cv::Point(static_cast<int>(std::lround(q.x)), static_cast<int>(std::lround(q.y)));
  };
  const std::vector<cv::Point> body = {p(front - 1.0, half), p(front, 0.0), p(front - 1.0, -half),
                                       p(back, -half), p(back, half)};
  cv::fillConvexPoly(panel, body, palette::ego(), cv::LINE_AA);
}

void draw_bev_lane(cv::Mat& panel, const std::vector<cv::Point2d>& line, const cv::Scalar& colour,
                   bool dashed) {
  if (dashed) {
    drawing::dashed_polyline(panel, line, colour, kBevLaneThickness - 1);
  } else {
    drawing::polyline(panel, line, colour, kBevLaneThickness);
  }
  const auto [before, middle] = middle_of(line);
  drawing::arrowhead(panel, before, middle, colour, 10.0);
}

// An edge bends to its right (seen along it) so that one between successive lanes, which would
// run along the lanes themselves, stays visible beside them.
void draw_bev_edge(cv::Mat& panel, cv::Point2d from, cv::Point2d to, const cv::Scalar& colour,
                   bool dashed) {
  const cv::Point2d along = to - from;
  const cv::Point2d control = 0.5 * (from + to) + kEdgeBend * cv::Point2d(-along.y, along.x);
  std::vector<cv::Point2d> arc;
  for (int k = 0; k <= kEdgeArcPoints; ++k) {
    const double s = static_cast<double>(k) / kEdgeArcPoints;
    arc.push_back((1 - s) * (1 - s) * from + 2 * s * (1 - s) * control + s * s * to);
  }
  if (dashed) {
    drawing::dashed_polyline(panel, arc, colour, kBevEdgeThickness, 5.0, 4.0);
  } else {
    drawing::polyline(panel, arc, colour, kBevEdgeThickness);
  }
  drawing::arrowhead(panel, arc[arc.size() - 2], to, colour, 7.0);
}

// A lane segment's boundary: thin, drawn as its line type says (solid, dashed, or dotted for
// none); the prediction's side of it is told apart by colour.
void draw_bev_boundary(cv::Mat& panel, const std::vector<cv::Point2d>& line,
                       const cv::Scalar& colour, int line_type) {
  if (line_type == kLineTypeSolid) {
    drawing::polyline(panel, line, colour, kBevBoundaryThickness);
  } else if (line_type == kLineTypeDash) {
    drawing::dashed_polyline(panel, line, colour, kBevBoundaryThickness, 6.0, 5.0);
  } else {
    drawing::dashed_polyline(panel, line, colour, kBevBoundaryThickness, 1.5, 4.0);
  }
}

// A crossing as its outline, a road boundary as its line.
void draw_bev_area(cv::Mat& panel, const std::vector<cv::Point2d>& points, int category,
                   bool predicted) {
  const cv::Scalar colour = palette::area(category, predicted);
  if (predicted) {
    std::vector<cv::Point2d> outline = points;
    if (category == kPedestrianCrossing && !outline.empty()) outline.push_back(outline.front());
    drawing::dashed_polyline(panel, outline, colour, kBevAreaThickness);
  } else {
    drawing::polyline(panel, points, colour, kBevAreaThickness);
  }
}

// v2.x: the lane segments' boundaries, then the areas over them (a road boundary runs along the
// outermost lane boundary), all under the centerlines.
void draw_lane_segment_extras(cv::Mat& panel, const BevView& view, const FigureContent& content) {
  const Frame& frame = *content.frame;
  for (const LaneSegment& segment : frame.lane_segments) {
    draw_bev_boundary(panel, to_pixels(view, polyline_points(segment.left_laneline)),
                      palette::ground_truth_boundary(),
                      static_cast<int>(segment.left_laneline_type));
    draw_bev_boundary(panel, to_pixels(view, polyline_points(segment.right_laneline)),
                      palette::ground_truth_boundary(),
                      static_cast<int>(segment.right_laneline_type));
  }
  for (const Area& area : frame.areas) {
    draw_bev_area(panel, to_pixels(view, polyline_points(area.points)),
                  static_cast<int>(area.category), false);
  }
  if (content.prediction == nullptr) return;
  for (size_t k : content.shown_areas) {
    const AreaPrediction& area = content.prediction->areas[k];
    draw_bev_area(panel, to_pixels(view, area.points), area.category, true);
  }
  for (size_t i : content.shown_lanes) {
    const LanePrediction& lane = content.prediction->lanes[i];
    draw_bev_boundary(panel, to_pixels(view, lane.left_laneline), palette::predicted_boundary(),
                      lane.left_laneline_type);
    draw_bev_boundary(panel, to_pixels(view, lane.right_laneline), palette::predicted_boundary(),
                      lane.right_laneline_type);
  }
}

}  // namespace

BevArea bev_area(const std::array<double, 6>& range, const std::string& source) {
  const BevArea area{range[0], range[3], range[1], range[4]};
  if (!(area.x_max > area.x_min && area.y_max > area.y_min)) {
    throw input_error(source + ": empty BEV range");
  }
  return area;
}

BevView::BevView(BevArea range, int height) : range_(range) {
  margin_m_ = 0.04 * (range.x_max - range.x_min);
  pixels_per_metre_ = height / (range.x_max - range.x_min + 2.0 * margin_m_);
  size_ = cv::Size(static_cast<int>(std::lround((range.y_max - range.y_min + 2.0 * margin_m_) *
                                                pixels_per_metre_)),
                   height);
}

cv::Point2d BevView::to_pixel(double x, double y) const {
  return {(range_.y_max + margin_m_ - y) * pixels_per_metre_,
          (range_.x_max + margin_m_ - x) * pixels_per_metre_};
}

cv::Mat draw_bev_panel(const FigureContent& content, const BevView& view) {
  cv::Mat panel(view.size(), CV_8UC3, palette::background());
  draw_grid(panel, view);
  draw_ego(panel, view);
  const Frame& frame = *content.frame;

  if (frame.format == FrameFormat::kLaneSegment) draw_lane_segment_extras(panel, view, content);
  std::vector<std::vector<cv::Point2d>> truth;
  for (const EgoPolyline& lane : ground_truth_centerlines(frame)) {
    truth.push_back(to_pixels(view, lane));
  }
  std::vector<std::vector<cv::Point2d>> predicted(
      content.prediction != nullptr ? content.prediction->lanes.size() : 0);
  for (size_t i : content.shown_lanes) {
    predicted[i] = to_pixels(view, content.prediction->lanes[i].points);
  }

  const auto midpoints = [](const std::vector<std::vector<cv::Point2d>>& lines) {
    std::vector<cv::Point2d> points;
    for (const auto& line : lines)
      points.push_back(line.empty() ? cv::Point2d() : middle_of(line).second);
    return points;
  };
  const std::vector<cv::Point2d> truth_middles = midpoints(truth);
  const std::vector<cv::Point2d> predicted_middles = midpoints(predicted);

  // Edges first, lanes over them; predictions over the ground truth.
  for (size_t i = 0; i < truth.size(); ++i) {
    for (size_t j = 0; j < truth.size(); ++j) {
      if (i != j && ground_truth_lane_edge(frame, i, j)) {
        draw_bev_edge(panel, truth_middles[i], truth_middles[j], palette::ground_truth_lane_edge(),
                      false);
      }
    }
  }
  for (size_t i : content.shown_lanes) {
    for (size_t j : content.shown_lanes) {
      if (i != j && is_predicted_edge(content.prediction->lclc(i, j))) {
        draw_bev_edge(panel, predicted_middles[i], predicted_middles[j],
                      palette::predicted_lane_edge(), true);
      }
    }
  }
  for (const auto& line : truth) draw_bev_lane(panel, line, palette::ground_truth_lane(), false);
  for (size_t i : content.shown_lanes) {
    draw_bev_lane(panel, predicted[i], palette::predicted_lane(), true);
  }
  return panel;
}

}  // namespace olv2
