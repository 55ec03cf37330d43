#pragma once
// Drawing the camera images of a synthetic scene: ground, sky, lane markings, centerlines and
// traffic elements.
#include <cstdint>
#include <opencv2/core/mat.hpp>

#include "olv2/data/synthetic/camera_rig.h"
#include "olv2/data/synthetic/scene.h"

namespace olv2::synthetic {

// BGR colour of the drawn lane centerlines (what a model learns to find).
const cv::Vec3b& centerline_colour();

// The image `camera` sees of `scene`: sky and ground split at the true horizon,
// with a noise texture drawn from `noise_seed`; lane markings and centerlines
// projected through lidar2img(camera) with a width that shrinks with depth; on
// the front camera (`is_front`) the traffic elements in their annotated boxes.
// 8-bit BGR, camera.height x camera.width.
cv::Mat render_camera_image(const SyntheticScene& scene, const SyntheticCamera& camera,
                            bool is_front, uint64_t noise_seed);

}  // namespace olv2::synthetic
