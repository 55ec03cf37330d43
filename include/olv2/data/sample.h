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
  // Lanes [n, R] float32 in metres: Bezier control points [n, 15] or resampled points
  // [n, 3 * points] (v1.x centerlines); lane segments [n, 3 * 3 * points], the centerline then
  // the left and right boundary (v2.x, pedestrian crossings appended as segments of label 1).
  at::Tensor gt_lc;
  at::Tensor gt_lc_labels;      // [n] int64
  at::Tensor gt_te;             // [m, 4] float32 boxes in the resized front image
  at::Tensor gt_te_labels;      // [m] int64 attribute
  at::Tensor gt_topology_lclc;  // [n, n] int8 (lane segments: [n_segments, n_segments])
  at::Tensor gt_topology_lcte;  // [n, m] int8
  // Lane segments only (undefined otherwise): the boundaries' line types [n] int64 (0 none,
  // 1 solid, 2 dashed) and each segment's instance mask on the BEV grid [n, bev_h, bev_w] uint8.
  at::Tensor gt_lane_left_type;
  at::Tensor gt_lane_right_type;
  at::Tensor gt_instance_masks;
  // Areas as point sets (the Map Element Bucket's; undefined otherwise): [n_a, points, 3]
  // float64 metres, resampled along their length, and their labels [n_a] int64, the area
  // category - 1 (0 pedestrian crossing, 1 road boundary).
  at::Tensor gt_areas;
  at::Tensor gt_area_labels;

  bool has_gt() const { return gt_lc.defined(); }
};

}  // namespace olv2
