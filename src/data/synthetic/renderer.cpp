#include "olv2/data/synthetic/renderer.h"

#include <algorithm>
#include <cmath>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

namespace olv2::synthetic {

namespace {

const cv::Vec3b kSkyTop(215, 170, 120);
const cv::Vec3b kSkyHorizon(235, 215, 195);
const cv::Vec3b kGround(95, 100, 100);
const cv::Scalar kMarkingColour(235, 235, 235);
const cv::Scalar kLightHousing(30, 30, 30);
const cv::Scalar kSignColour(170, 90, 20);
const cv::Scalar kWhite(255, 255, 255);

constexpr double kCenterlineWidth = 0.25;  // metres
constexpr double kMarkingWidth = 0.15;
constexpr int kShift = 3;  // sub-pixel bits for cv::line
constexpr double kFineNoiseSigma = 6.0;
constexpr double kBlotchAmplitude = 22.0;
constexpr int kBlotchCell = 16;  // pixels per low-frequency noise cell

cv::Vec3b mix(const cv::Vec3b& a, const cv::Vec3b& b, double weight_b) {
  cv::Vec3b result;
  for (int c = 0; c < 3; ++c) {
    result[c] = cv::saturate_cast<uchar>((1 - weight_b) * a[c] + weight_b * b[c]);
  }
  return result;
}

// Sky above the horizon (a vertical gradient), ground below it: a pixel sees
// the ground when its viewing ray points downwards in ego coordinates.
cv::Mat render_background(const SyntheticCamera& camera) {
  const cv::Matx33d ray = camera.R * camera.K.inv();
  cv::Mat image(camera.height, camera.width, CV_8UC3);
  for (int v = 0; v < camera.height; ++v) {
    auto* row = image.ptr<cv::Vec3b>(v);
    const double row_term = ray(2, 1) * v + ray(2, 2);
    const cv::Vec3b sky = mix(kSkyTop, kSkyHorizon, static_cast<double>(v) / camera.height);
    for (int u = 0; u < camera.width; ++u) {
      row[u] = ray(2, 0) * u + row_term < 0 ? kGround : sky;
    }
  }
  return image;
}

// Fine grain plus low-frequency blotches, so that no two frames look flat.
void add_texture(cv::Mat& image, uint64_t noise_seed) {
  cv::RNG rng(noise_seed);
  cv::Mat textured;
  image.convertTo(textured, CV_16SC3);
  cv::Mat fine(image.size(), CV_16SC3);
  rng.fill(fine, cv::RNG::NORMAL, 0.0, kFineNoiseSigma);
  cv::Mat cells(std::max(2, image.rows / kBlotchCell), std::max(2, image.cols / kBlotchCell),
                CV_16SC3);
  rng.fill(cells, cv::RNG::UNIFORM, -kBlotchAmplitude, kBlotchAmplitude);
  cv::Mat blotches;
  cv::resize(cells, blotches, image.size(), 0, 0, cv::INTER_LINEAR);
  textured += fine + blotches;
  textured.convertTo(image, CV_8UC3);
}

// Draws a 3-D polyline segment by segment; the width (metres on the ground) is
// converted to pixels at each segment's depth.
void draw_polyline(cv::Mat& image, const SyntheticCamera& camera, const cv::Matx44d& projection,
                   const std::vector<cv::Vec3d>& points, double width_metres, int min_pixels,
                   const cv::Scalar& colour) {
  const double limit = 4.0 * std::max(camera.width, camera.height);
  auto fixed_point = [](const cv::Point2d& p) {
    return cv::Point(static_cast<int>(std::lround(p.x * (1 << kShift))),
                     static_cast<int>(std::lround(p.y * (1 << kShift))));
  };
  std::optional<Projection> previous;
  for (const cv::Vec3d& point : points) {
    std::optional<Projection> current = project(projection, point);
    if (current && (std::abs(current->pixel.x) > limit || std::abs(current->pixel.y) > limit)) {
      current.reset();
    }
    if (previous && current) {
      const double depth = 0.5 * (previous->depth + current->depth);
      const int thickness = std::max(
          min_pixels, static_cast<int>(std::lround(camera.K(0, 0) * width_metres / depth)));
      cv::line(image, fixed_point(previous->pixel), fixed_point(current->pixel), colour, thickness,
               cv::LINE_8, kShift);
    }
    previous = current;
  }
}

cv::Scalar light_colour(int attribute) {
  switch (attribute) {
    case kRed:
      return {40, 40, 230};
    case kGreen:
      return {60, 200, 60};
    case kYellow:
      return {30, 210, 230};
    default:
      return {200, 200, 200};
  }
}

// A dark housing with one lamp lit: red on top, yellow in the middle, green at
// the bottom.
void draw_light(cv::Mat& image, const cv::Rect& box, int attribute) {
  cv::rectangle(image, box, kLightHousing, cv::FILLED);
  const int slot = attribute == kRed ? 0 : attribute == kYellow ? 1 : 2;
  const cv::Point centre(box.x + box.width / 2, box.y + box.height * (2 * slot + 1) / 6);
  const int radius = std::max(1, std::min(box.width, box.height / 3) * 2 / 5);
  cv::circle(image, centre, radius, light_colour(attribute), cv::FILLED);
}

// A blue panel with a white arrow pointing the way its attribute allows.
void draw_sign(cv::Mat& image, const cv::Rect& box, int attribute) {
  cv::rectangle(image, box, kSignColour, cv::FILLED);
  cv::rectangle(image, box, kWhite, 1);
  const cv::Point centre(box.x + box.width / 2, box.y + box.height / 2);
  const int reach = std::max(1, std::min(box.width, box.height) * 3 / 8);
  cv::Point tip(centre.x, centre.y - reach);
  if (attribute == kTurnLeft) {
    tip = {centre.x - reach, centre.y};
  } else if (attribute == kTurnRight) {
    tip = {centre.x + reach, centre.y};
  }
  const cv::Point tail(2 * centre.x - tip.x, 2 * centre.y - tip.y);
  cv::arrowedLine(image, tail, tip, kWhite, std::max(1, reach / 3), cv::LINE_8, 0, 0.4);
}

}  // namespace

const cv::Vec3b& centerline_colour() {
  static const cv::Vec3b colour(0, 200, 255);
  return colour;
}

cv::Mat render_camera_image(const SyntheticScene& scene, const SyntheticCamera& camera,
                            bool is_front, uint64_t noise_seed) {
  cv::Mat image = render_background(camera);
  add_texture(image, noise_seed);
  const cv::Matx44d projection = lidar2img(camera);
  for (const auto& marking : scene.markings) {
    draw_polyline(image, camera, projection, marking, kMarkingWidth, 1, kMarkingColour);
  }
  const cv::Vec3b& lane = centerline_colour();
  for (const SyntheticLane& centerline : scene.lanes) {
    draw_polyline(image, camera, projection, centerline.points, kCenterlineWidth, 2,
                  cv::Scalar(lane[0], lane[1], lane[2]));
  }
  if (is_front) {
    for (const SyntheticTrafficElement& element : scene.traffic_elements) {
      const cv::Rect box(cv::Point(static_cast<int>(std::lround(element.x1)),
                                   static_cast<int>(std::lround(element.y1))),
                         cv::Point(static_cast<int>(std::lround(element.x2)) + 1,
                                   static_cast<int>(std::lround(element.y2)) + 1));
      if (element.category == 1) {
        draw_light(image, box, element.attribute);
      } else {
        draw_sign(image, box, element.attribute);
      }
    }
  }
  return image;
}

}  // namespace olv2::synthetic
