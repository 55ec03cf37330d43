#include "olv2/visualization/palette.h"

#include <array>

namespace olv2::palette {

namespace {

cv::Scalar rgb(int r, int g, int b) { return cv::Scalar(b, g, r); }

}  // namespace

const cv::Scalar& ground_truth_lane() {
  static const cv::Scalar colour = rgb(0, 114, 189);
  return colour;
}

const cv::Scalar& predicted_lane() {
  static const cv::Scalar colour = rgb(217, 83, 25);
  return colour;
}

const cv::Scalar& ground_truth_lane_edge() {
  static const cv::Scalar colour = rgb(110, 170, 220);
  return colour;
}

const cv::Scalar& predicted_lane_edge() {
  static const cv::Scalar colour = rgb(240, 160, 120);
  return colour;
}

const cv::Scalar& traffic_element(int attribute) {
  // Thirteen colours far apart from each other and from the two lane colours.
  static const std::array<cv::Scalar, 13> colours = {
      rgb(128, 128, 128), rgb(230, 25, 75),  rgb(60, 180, 75),  rgb(255, 225, 25),
      rgb(70, 240, 240),  rgb(145, 30, 180), rgb(240, 50, 230), rgb(210, 245, 60),
      rgb(250, 190, 212), rgb(0, 128, 128),  rgb(170, 110, 40), rgb(128, 0, 0),
      rgb(0, 0, 128)};
  if (attribute < 0 || attribute >= static_cast<int>(colours.size())) return colours[0];
  return colours[static_cast<size_t>(attribute)];
}

const cv::Scalar& background() {
  static const cv::Scalar colour = rgb(255, 255, 255);
  return colour;
}

const cv::Scalar& grid() {
  static const cv::Scalar colour = rgb(225, 225, 225);
  return colour;
}

const cv::Scalar& range() {
  static const cv::Scalar colour = rgb(150, 150, 150);
  return colour;
}

const cv::Scalar& ego() {
  static const cv::Scalar colour = rgb(60, 60, 60);
  return colour;
}

const cv::Scalar& text() {
  static const cv::Scalar colour = rgb(20, 20, 20);
  return colour;
}

}  // namespace olv2::palette
