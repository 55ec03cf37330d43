#pragma once
// The multi-scale deformable sampling under every deformable attention, mmcv's
// `multi_scale_deformable_attn_pytorch`.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace olv2 {

// Heights and widths of the feature levels whose tokens are concatenated, level by level and
// row-major within a level, along the value's token axis.
using SpatialShapes = std::vector<std::pair<int64_t, int64_t>>;

// The multi-scale deformable sampling shared by every deformable attention of the project
// (mmcv's `multi_scale_deformable_attn_pytorch`):
//   out[b, q, h*D + d] = sum over levels l and points p of
//       weights[b, q, h, l, p] * bilinear(value[b, level l, h, d], locations[b, q, h, l, p])
// value [B, S, H, D] with S = sum of h_l * w_l; locations [B, Q, H, L, P, 2] as (x, y) in
// [0, 1] of the level; weights [B, Q, H, L, P]. Bilinear sampling uses half-pixel centres
// (`align_corners=False`) and zero padding, i.e. grid_sample on the grid 2 * loc - 1.
// Runs in float32 with autocast off whatever the inputs' dtype; returns [B, Q, H * D] float32.
at::Tensor ms_deform_attn(const at::Tensor& value, const SpatialShapes& spatial_shapes,
                          const at::Tensor& locations, const at::Tensor& weights);

// Exclusive prefix sums of h_l * w_l: where each level starts on the token axis.
std::vector<int64_t> level_start_index(const SpatialShapes& spatial_shapes);

}  // namespace olv2
