#pragma once
// The bird's-eye panel of a frame figure: its geometry and its drawing of lanes and their topology.
#include <array>
#include <opencv2/core/mat.hpp>
#include <string>

#include "olv2/visualization/figure_content.h"

namespace olv2 {

// The ground area a model sees, in ego metres (x forward, y left).
struct BevArea {
  double x_min = -50.0, x_max = 50.0;
  double y_min = -25.0, y_max = 25.0;
};

// The ground area of a BEV range [x_min, y_min, z_min, x_max, y_max, z_max] (a model's, as
// models/build.h's detector_bev_range gives it). An empty range is an input error naming
// `source`.
BevArea bev_area(const std::array<double, 6>& range, const std::string& source);

// The bird's-eye panel's geometry: the range with a margin around it, x forward pointing up and
// y left pointing left, at a scale that makes the panel `height` pixels tall.
class BevView {
 public:
  BevView(BevArea range, int height);
  cv::Size size() const { return size_; }
  const BevArea& range() const { return range_; }
  cv::Point2d to_pixel(double x, double y) const;

 private:
  BevArea range_;
  double margin_m_;
  double pixels_per_metre_;
  cv::Size size_;
};

// The bird's-eye view: a 10 m grid with labels, the BEV range, the ego car, ground-truth lanes
// (solid) and predicted lanes (dashed) with direction arrows, and the lane -> lane topology as
// arrows between lane midpoints (solid: ground truth, dashed: predicted).
cv::Mat draw_bev_panel(const FigureContent& content, const BevView& view);

}  // namespace olv2
