#pragma once
// The cameras of synthetic frames: a plausible subset A or B ring, and projection through it.
#include <opencv2/core/matx.hpp>
#include <opencv2/core/types.hpp>
#include <optional>
#include <string>
#include <vector>

#include "olv2/data/frame.h"
#include "olv2/data/synthetic/scene_rng.h"

namespace olv2::synthetic {

// One camera of the synthetic ring, with values exactly as written to the frame
// JSON (already rounded), so that projecting with them reproduces what the
// reader computes.
struct SyntheticCamera {
  std::string name;
  int width = 0;  // pixels of the written image
  int height = 0;
  cv::Matx33d K;         // intrinsics of the written image
  cv::Vec3d distortion;  // written for completeness; the baseline ignores it
  cv::Matx33d R;         // camera->ego rotation, OpenCV camera axes (x right, y down, z
                         // forward)
  cv::Vec3d t;           // camera position in ego, metres
};

// A plausible camera ring of `subset`, its cameras in the order of frame.h: subset A's 7
// Argoverse 2 cameras (front 1550x2048 portrait, others 2048x1550) or subset B's 6 nuScenes
// cameras (1600x900), the images those sizes times `image_scale`. `rng` adds the small
// per-vehicle calibration differences of real data (fractions of a degree, millimetres, <1%
// focal length).
std::vector<SyntheticCamera> make_camera_rig(Subset subset, double image_scale, SceneRng& rng);

// The reader's projection (spec §1.4): K4 * [R^T, -R^T t; 0 0 0 1]. Maps a
// homogeneous ego point to (u d, v d, d, 1).
cv::Matx44d lidar2img(const SyntheticCamera& camera);

// A projected point: pixel coordinates and depth along the optical axis
// (metres).
struct Projection {
  cv::Point2d pixel;
  double depth = 0;
};

// Projects an ego point with `lidar2img`; nullopt when it lies less than
// `min_depth` in front of the camera.
std::optional<Projection> project(const cv::Matx44d& lidar2img, const cv::Vec3d& ego_point,
                                  double min_depth = 0.5);

}  // namespace olv2::synthetic
