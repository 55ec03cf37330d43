#include "olv2/data/synthetic/camera_rig.h"

#include <cmath>

#include "olv2/data/synthetic/decimal_rounding.h"
#include "olv2/util/math_constants.h"

namespace olv2::synthetic {

namespace {

// Nominal camera of a rig: optical-axis yaw (degrees, ego frame, left positive), downward pitch
// (degrees), position (metres), focal length and size (pixels) of the full-size image.
struct NominalCamera {
  const char* name;
  double yaw_deg;
  double pitch_deg;
  cv::Vec3d position;
  double focal;
  int width;
  int height;
};

// Argoverse 2 (subset A): the front image is portrait, 1550 wide x 2048 high, the others
// 2048 x 1550.
const NominalCamera kArgoverseRing[] = {
    {"ring_front_center", 0.0, 1.5, {1.63, 0.0, 1.42}, 1773.0, 1550, 2048},
    {"ring_front_left", 45.0, 1.0, {1.55, 0.26, 1.42}, 1686.0, 2048, 1550},
    {"ring_front_right", -45.0, 1.0, {1.55, -0.26, 1.42}, 1686.0, 2048, 1550},
    {"ring_rear_left", 153.0, 0.8, {-0.20, 0.43, 1.42}, 1686.0, 2048, 1550},
    {"ring_rear_right", -153.0, 0.8, {-0.20, -0.43, 1.42}, 1686.0, 2048, 1550},
    {"ring_side_left", 99.0, 1.0, {1.19, 0.51, 1.42}, 1686.0, 2048, 1550},
    {"ring_side_right", -99.0, 1.0, {1.19, -0.51, 1.42}, 1686.0, 2048, 1550},
};

// nuScenes (subset B): six 1600 x 900 cameras, the rear one wider.
const NominalCamera kNuScenesRing[] = {
    {"CAM_FRONT", 0.0, 0.5, {1.70, 0.02, 1.51}, 1266.0, 1600, 900},
    {"CAM_FRONT_RIGHT", -55.0, 0.5, {1.55, -0.49, 1.50}, 1260.0, 1600, 900},
    {"CAM_FRONT_LEFT", 55.0, 0.5, {1.52, 0.49, 1.51}, 1257.0, 1600, 900},
    {"CAM_BACK", 180.0, 0.5, {0.03, 0.0, 1.57}, 809.0, 1600, 900},
    {"CAM_BACK_LEFT", 110.0, 0.5, {1.04, 0.48, 1.56}, 1256.0, 1600, 900},
    {"CAM_BACK_RIGHT", -110.0, 0.5, {1.05, -0.48, 1.56}, 1260.0, 1600, 900},
};

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

std::vector<SyntheticCamera> make_camera_rig(Subset subset, double image_scale, SceneRng& rng) {
  std::vector<SyntheticCamera> rig;
  const auto add = [&](const NominalCamera& nominal) {
    SyntheticCamera camera;
    camera.name = nominal.name;
    camera.width = std::max(1, static_cast<int>(std::lround(nominal.width * image_scale)));
    camera.height = std::max(1, static_cast<int>(std::lround(nominal.height * image_scale)));
    const double scale_x = static_cast<double>(camera.width) / nominal.width;
    const double scale_y = static_cast<double>(camera.height) / nominal.height;

    const double focal = nominal.focal * rng.uniform(0.995, 1.005);
    const double cx = nominal.width / 2.0 + rng.uniform(-4.0, 4.0);
    const double cy = nominal.height / 2.0 + rng.uniform(-4.0, 4.0);
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
  };
  if (subset == Subset::kA) {
    for (const NominalCamera& nominal : kArgoverseRing) add(nominal);
  } else {
    for (const NominalCamera& nominal : kNuScenesRing) add(nominal);
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
