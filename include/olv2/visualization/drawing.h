#pragma once
// The drawing primitives of the figures: clipped antialiased lines, dashes, arrowheads and text.
#include <opencv2/core/mat.hpp>
#include <string>
#include <vector>

namespace olv2::drawing {

// Lines in double pixel coordinates, clipped to the image first (so points far outside it, as
// projections of points near the camera plane are, draw what is visible and nothing else).
// Every line is antialiased.
void line(cv::Mat& image, cv::Point2d from, cv::Point2d to, const cv::Scalar& colour,
          int thickness);
void polyline(cv::Mat& image, const std::vector<cv::Point2d>& points, const cv::Scalar& colour,
              int thickness);

// Dashes of `dash` pixels with gaps of `gap`, continued across the polyline's corners.
void dashed_polyline(cv::Mat& image, const std::vector<cv::Point2d>& points,
                     const cv::Scalar& colour, int thickness, double dash = 9.0, double gap = 6.0);
void dashed_rectangle(cv::Mat& image, cv::Point2d top_left, cv::Point2d bottom_right,
                      const cv::Scalar& colour, int thickness);

// A filled arrowhead at `tip` pointing along `from` -> `tip`, `length` pixels long.
void arrowhead(cv::Mat& image, cv::Point2d from, cv::Point2d tip, const cv::Scalar& colour,
               double length);

// `text` with its baseline's left end at `origin`, in the figures' one font.
void text(cv::Mat& image, const std::string& text, cv::Point origin, const cv::Scalar& colour,
          double scale = 0.5, int thickness = 1);

}  // namespace olv2::drawing
