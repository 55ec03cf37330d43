#include "olv2/visualization/drawing.h"

#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>

namespace olv2::drawing {

namespace {

// cv::line takes integer points: coordinates are clamped well inside int's range first, then
// clipped to the image by OpenCV.
constexpr double kCoordinateLimit = 1e6;

cv::Point to_int(cv::Point2d point) {
  return {static_cast<int>(std::lround(std::clamp(point.x, -kCoordinateLimit, kCoordinateLimit))),
          static_cast<int>(std::lround(std::clamp(point.y, -kCoordinateLimit, kCoordinateLimit)))};
}

double distance(cv::Point2d a, cv::Point2d b) { return std::hypot(b.x - a.x, b.y - a.y); }

}  // namespace

void line(cv::Mat& image, cv::Point2d from, cv::Point2d to, const cv::Scalar& colour,
          int thickness) {
  cv::Point a = to_int(from);
  cv::Point b = to_int(to);
  const int margin = thickness + 2;
  const cv::Rect bounds(-margin, -margin, image.cols + 2 * margin, image.rows + 2 * margin);
  if (!cv::clipLine(bounds, a, b)) return;
  cv::line(image, a, b, colour, thickness, cv::LINE_AA);
}

void polyline(cv::Mat& image, const std::vector<cv::Point2d>& points, const cv::Scalar& colour,
              int thickness) {
  for (size_t i = 1; i < points.size(); ++i) {
    line(image, points[i - 1], points[i], colour, thickness);
  }
}

void dashed_polyline(cv::Mat& image, const std::vector<cv::Point2d>& points,
                     const cv::Scalar& colour, int thickness, double dash, double gap) {
  const double period = dash + gap;
  double phase = 0.0;  // arc length into the current period
  for (size_t i = 1; i < points.size(); ++i) {
    const cv::Point2d a = points[i - 1];
    const cv::Point2d b = points[i];
    const double length = distance(a, b);
    if (length <= 0.0) continue;
    double at = 0.0;
    while (at < length) {
      const double in_period = std::fmod(phase + at, period);
      const bool drawing = in_period < dash;
      const double step = std::min(length - at, drawing ? dash - in_period : period - in_period);
      if (drawing) {
        line(image, a + (b - a) * (at / length), a + (b - a) * ((at + step) / length), colour,
             thickness);
      }
      at += step;
    }
    phase = std::fmod(phase + length, period);
  }
}

void dashed_rectangle(cv::Mat& image, cv::Point2d top_left, cv::Point2d bottom_right,
                      const cv::Scalar& colour, int thickness) {
  const cv::Point2d top_right(bottom_right.x, top_left.y);
  const cv::Point2d bottom_left(top_left.x, bottom_right.y);
  dashed_polyline(image, {top_left, top_right, bottom_right, bottom_left, top_left}, colour,
                  thickness, 6.0, 4.0);
}

void arrowhead(cv::Mat& image, cv::Point2d from, cv::Point2d tip, const cv::Scalar& colour,
               double length) {
  const double norm = distance(from, tip);
  if (norm <= 0.0) return;
  const cv::Point2d back = (from - tip) * (length / norm);
  const cv::Point2d side(-back.y * 0.5, back.x * 0.5);
  const std::vector<cv::Point> triangle = {to_int(tip), to_int(tip + back + side),
                                           to_int(tip + back - side)};
  cv::fillConvexPoly(image, triangle, colour, cv::LINE_AA);
}

void text(cv::Mat& image, const std::string& text, cv::Point origin, const cv::Scalar& colour,
          double scale, int thickness) {
  cv::putText(image, text, origin, cv::FONT_HERSHEY_SIMPLEX, scale, colour, thickness, cv::LINE_AA);
}

}  // namespace olv2::drawing
