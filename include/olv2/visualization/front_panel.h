#pragma once
// The front-camera panel of a frame figure: its projection of ego points and its drawing of lanes,
// boxes and links.
#include <array>
#include <opencv2/core/mat.hpp>
#include <vector>

#include "olv2/data/frame.h"
#include "olv2/visualization/figure_content.h"

namespace olv2 {

// The front-camera panel's geometry: the camera image scaled to `height` pixels, and the
// camera's projection of ego points (spec: p_cam = R^T (p_ego - t), pixel = K p_cam / depth),
// into panel pixels.
class FrontView {
 public:
  FrontView(const CameraInfo& camera, cv::Size image_size, int height);
  cv::Size size() const { return size_; }
  double scale() const { return scale_; }  // panel pixels per image pixel
  cv::Point2d image_to_panel(double u, double v) const { return {u * scale_, v * scale_}; }
  // The visible pieces of an ego polyline in panel pixels: cut where it passes behind the camera
  // (closer than 0.1 m along the optical axis), each piece at least two points.
  std::vector<std::vector<cv::Point2d>> project(
      const std::vector<std::array<float, 3>>& points) const;

 private:
  CameraInfo camera_;
  double scale_;
  cv::Size size_;
};

// The front camera image with the lanes' projections (ground truth solid, predictions dashed),
// the traffic-element boxes coloured by attribute (ground truth solid, predictions dashed with
// their score), and every lane -> traffic-element link as a line from the box to the middle of
// the lane's visible projection, in the element's colour.
cv::Mat draw_front_panel(const FigureContent& content, const cv::Mat& image, const FrontView& view);

}  // namespace olv2
