#include "olv2/visualization/palette.h"

#include <array>

namespace olv2::palette {

namespace {

cv::Scalar rgb(int r, int g, int b) { return cv::Scalar(b, g, r); }

}  // namespace

cv::Scalar ground_truth_lane() { return rgb(0, 114, 189); }
cv::Scalar predicted_lane() { return rgb(217, 83, 25); }
cv::Scalar ground_truth_lane_edge() { return rgb(110, 170, 220); }
cv::Scalar predicted_lane_edge() { return rgb(240, 160, 120); }

cv::Scalar ground_truth_boundary() { return rgb(70, 100, 140); }
cv::Scalar predicted_boundary() { return rgb(190, 110, 70); }

cv::Scalar area(int category, bool predicted) {
  if (category == 1) return predicted ? rgb(120, 200, 60) : rgb(0, 140, 60);
  return predicted ? rgb(205, 150, 70) : rgb(120, 70, 20);
}

cv::Scalar traffic_element(int attribute) {
  // Thirteen colours far apart from each other and from the two lane colours.
  static const std::array<cv::Scalar, 13> colours = {
      rgb(128, 128, 128), rgb(230, 25, 75),  rgb(60, 180, 75),  rgb(255, 225, 25),
      rgb(70, 240, 240),  rgb(145, 30, 180), rgb(240, 50, 230), rgb(210, 245, 60),
      rgb(250, 190, 212), rgb(0, 128, 128),  rgb(170, 110, 40), rgb(128, 0, 0),
      rgb(0, 0, 128)};
  if (attribute < 0 || attribute >= static_cast<int>(colours.size())) return colours[0];
  return colours[static_cast<size_t>(attribute)];
}

cv::Scalar background() { return rgb(255, 255, 255); }
cv::Scalar grid() { return rgb(225, 225, 225); }
cv::Scalar range() { return rgb(150, 150, 150); }
cv::Scalar ego() { return rgb(60, 60, 60); }
cv::Scalar text() { return rgb(20, 20, 20); }

}  // namespace olv2::palette
