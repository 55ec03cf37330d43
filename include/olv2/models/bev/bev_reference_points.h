#pragma once
// BEVFormer's reference points: the BEV grid's pillar anchors and cell centres, and the anchors'
// projection into the cameras.
#include <ATen/core/Tensor.h>
#include <c10/core/TensorOptions.h>

#include <cstdint>
#include <utility>

#include "olv2/data/bev_range.h"

namespace olv2 {

// BEVFormer's pillar anchors, normalised to [0, 1]: for every BEV cell (row r, column c, flat
// index r * bev_w + c) `num_points_in_pillar` heights evenly spaced over `pillar_height`, as
// (x, y, z) = ((c + 0.5) / bev_w, (r + 0.5) / bev_h, (d + 0.5) / D). Returns [B, D, h*w, 3].
at::Tensor bev_reference_points_3d(int64_t bev_h, int64_t bev_w, double pillar_height,
                                   int64_t num_points_in_pillar, int64_t batch,
                                   const c10::TensorOptions& options);

// The BEV cell centres ((c + 0.5) / bev_w, (r + 0.5) / bev_h), [B, h*w, 1, 2].
at::Tensor bev_reference_points_2d(int64_t bev_h, int64_t bev_w, int64_t batch,
                                   const c10::TensorOptions& options);

struct CameraReferencePoints {
  at::Tensor points;  // [N_cam, B, h*w, D, 2]: (u, v) divided by the image width and height
  at::Tensor mask;    // [N_cam, B, h*w, D] bool: in front of the camera and strictly inside (0, 1)
};

// BEVFormer's `point_sampling`: the 3-D anchors mapped to metres over `pc_range` and projected
// with lidar2img [B, N_cam, 4, 4] (cast to float32; runs in float32 with autocast off).
// Original behaviour: pixels are divided by `img_hw` = (height, width) of camera 0 of sample 0,
// the un-padded image size, although the features cover the padded image (spec §9 item 5).
CameraReferencePoints project_reference_points(const at::Tensor& reference_points_3d,
                                               const BevRange& pc_range,
                                               const at::Tensor& lidar2img,
                                               std::pair<int64_t, int64_t> img_hw);

}  // namespace olv2
