#include "olv2/data/synthetic/camera_rig.h"

#include <cmath>

#include "olv2/data/synthetic/decimal_rounding.h"
#include "olv2/util/math_constants.h"

namespace olv2::synthetic {

namespace {

// Nominal Argoverse 2 ring: optical-axis yaw (degrees, ego frame, left
// positive), downward pitch (degrees), position (metres) and focal length of
// the full-size image.
struct NominalCamera {
  const char* name;
  double yaw_deg;
  double pitch_deg;
  cv::Vec3d position;
  double focal;
};

const NominalCamera kNominalRing[] = {
    {"ring_front_center", 0.0, 1.5, {1.63, 0.0, 1.42}, 1773.0},
    {"ring_front_left", 45.0, 1.0, {1.55, 0.26, 1.42}, 1686.0},
    {"ring_front_right", -45.0, 1.0, {1.55, -0.26, 1.42}, 1686.0},
    {"ring_rear_left", 153.0, 0.8, {-0.20, 0.43, 1.42}, 1686.0},
    {"ring_rear_right", -153.0, 0.8, {-0.20, -0.43, 1.42}, 1686.0},
    {"ring_side_left", 99.0, 1.0, {1.19, 0.51, 1.42}, 1686.0},
    {"ring_side_right", -99.0, 1.0, {1.19, -0.51, 1.42}, 1686.0},
};

constexpr int kPortraitWidth = 1550;   // real front image: 1550 wide x 2048 high
constexpr int kLandscapeWidth = 2048;  // real other images: 2048 wide x 1550 high
constexpr double kDegree = kPi / 180.0;

// Camera->ego rotation whose columns are the camera's x (right), y (down) and z
// (forward) axes in ego coordinates, for an optical axis at `yaw` (left
// positive), pitched down by `pitch` and rolled by `roll` about itself.
cv::Matx33d camera_to_ego(double yaw, double pitch, double roll) {
  const cv::Vec3d forward(std::cos(pitch) * std::cos(yaw), std::cos(pitch) * std::sin(yaw),
                          -std::sin(pitch));
  const cv::Vec3d level_right(std::sin(yaw), -std::cos(yaw), 0.0);
  const cv::Vec3d level_down = forward.cross(level_right);
  const cv::Vec3d right = std::cos(roll) * level_right + std::sin(roll) * level_down;
  const cv::Vec3d down = forward.cross(right);
  return cv::Matx33d(right[0], down[0], forward[0],  //
                     right[1], down[1], forward[1],  //
                     right[2], down[2], forward[2]);
}

}  // namespace

const std::vector<std::string>& ring_camera_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> result;
    for (const NominalCamera& nominal : kNominalRing) {
      result.emplace_back(nominal.name);
    }
    return result;
  }();
  return names;
}

std::vector<SyntheticCamera> make_camera_rig(double image_scale, SceneRng& rng) {
  std::vector<SyntheticCamera> rig;
  for (const NominalCamera& nominal : kNominalRing) {
    const bool portrait = rig.empty();
    const int full_width = portrait ? kPortraitWidth : kLandscapeWidth;
    const int full_height = portrait ? kLandscapeWidth : kPortraitWidth;
    SyntheticCamera camera;
    camera.name = nominal.name;
    camera.width = std::max(1, static_cast<int>(std::lround(full_width * image_scale)));
    camera.height = std::max(1, static_cast<int>(std::lround(full_height * image_scale)));
    const double scale_x = static_cast<double>(camera.width) / full_width;
    const double scale_y = static_cast<double>(camera.height) / full_height;

    const double focal = nominal.focal * rng.uniform(0.995, 1.005);
    const double cx = full_width / 2.0 + rng.uniform(-4.0, 4.0);
    const double cy = full_height / 2.0 + rng.uniform(-4.0, 4.0);
    camera.K = cv::Matx33d(round_to(focal * scale_x, 2), 0.0, round_to(cx * scale_x, 2),  //
                           0.0, round_to(focal * scale_y, 2), round_to(cy * scale_y, 2),  //
                           0.0, 0.0, 1.0);
    camera.distortion =
        cv::Vec3d(round_to(rng.uniform(-0.25, -0.19), 4), round_to(rng.uniform(-0.05, -0.03), 4),
                  round_to(rng.uniform(0.07, 0.1), 4));
    camera.R = camera_to_ego((nominal.yaw_deg + rng.uniform(-0.5, 0.5)) * kDegree,
                             (nominal.pitch_deg + rng.uniform(-0.3, 0.3)) * kDegree,
                             rng.uniform(-0.3, 0.3) * kDegree);
    for (int axis = 0; axis < 3; ++axis) {
      camera.t[axis] = round_to(nominal.position[axis] + rng.uniform(-0.005, 0.005), 3);
    }
    rig.push_back(camera);
  }
  return rig;
}

cv::Matx44d lidar2img(const SyntheticCamera& camera) {
  const cv::Matx33d ego_to_camera = camera.R.t();
  const cv::Vec3d offset = -(ego_to_camera * camera.t);
  cv::Matx44d extrinsic = cv::Matx44d::eye();
  cv::Matx44d intrinsic = cv::Matx44d::eye();
  for (int row = 0; row < 3; ++row) {
    for (int col = 0; col < 3; ++col) {
      extrinsic(row, col) = ego_to_camera(row, col);
      intrinsic(row, col) = camera.K(row, col);
    }
    extrinsic(row, 3) = offset[row];
  }
  return intrinsic * extrinsic;
}

std::optional<Projection> project(const cv::Matx44d& lidar2img, const cv::Vec3d& ego_point,
                                  double min_depth) {
  const cv::Vec4d image = lidar2img * cv::Vec4d(ego_point[0], ego_point[1], ego_point[2], 1.0);
  if (!(image[2] >= min_depth)) {
    return std::nullopt;
  }
  return Projection{{image[0] / image[2], image[1] / image[2]}, image[2]};
}

}  // namespace olv2::synthetic
