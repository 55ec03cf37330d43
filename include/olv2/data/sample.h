#pragma once
// One frame as the pipeline leaves it: image tensors, camera geometry, `img_metas`, ground truth.
#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace olv2 {

// The original's `img_metas` of one frame.
struct ImageMeta {
  std::string scene_token;                                // segment id
  std::string sample_idx;                                 // timestamp
  std::vector<std::string> img_paths;                     // data_root/image_path, camera order
  std::vector<std::array<int64_t, 3>> img_shape;          // per camera (H, W, C) after resize
  std::vector<std::array<int64_t, 3>> pad_shape;          // per camera (H, W, C) after padding
  std::array<float, 4> scale_factor{1.f, 1.f, 1.f, 1.f};  // (w, h, w, h) of the front resize
  // Per camera (x, y): where the kept part of the raw image starts (TopoNet's front-view crop);
  // empty when no camera is cropped.
  std::vector<std::array<int64_t, 2>> crop_shape;
};

// One frame after the pipeline.
struct Sample {
  int64_t index = -1;    // position in the dataset
  at::Tensor img;        // [N_cam, 3, H, W] float32
  at::Tensor lidar2img;  // [N_cam, 4, 4] float64 (front camera includes the resize)
  at::Tensor can_bus;    // [18] float64
  ImageMeta meta;

  // Ground truth, defined only when the pipeline collects it (train).
  at::Tensor gt_lc;             // [n, 15] float32 Bezier control points, metres
  at::Tensor gt_lc_labels;      // [n] int64
  at::Tensor gt_te;             // [m, 4] float32 boxes in the resized front image
  at::Tensor gt_te_labels;      // [m] int64 attribute
  at::Tensor gt_topology_lclc;  // [n, n] int8
  at::Tensor gt_topology_lcte;  // [n, m] int8

  bool has_gt() const { return gt_lc.defined(); }
};

}  // namespace olv2
