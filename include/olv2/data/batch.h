#pragma once
// The batch the model takes: samples collated into stacked tensors, ground truth kept per sample.
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <vector>

#include "olv2/data/sample.h"

namespace olv2 {

// Samples collated for the model. Ground truth stays per sample (counts
// differ).
struct Batch {
  at::Tensor images;     // [B, N_cam, 3, H, W] float32
  at::Tensor lidar2img;  // [B, N_cam, 4, 4] float64
  at::Tensor can_bus;    // [B, 18] float64
  std::vector<ImageMeta> metas;
  std::vector<int64_t> indices;  // dataset index of each sample

  std::vector<at::Tensor> gt_lc;  // per sample; empty when the batch has no GT
  std::vector<at::Tensor> gt_lc_labels;
  std::vector<at::Tensor> gt_te;
  std::vector<at::Tensor> gt_te_labels;
  std::vector<at::Tensor> gt_topology_lclc;
  std::vector<at::Tensor> gt_topology_lcte;
  // Lane segments only (empty otherwise), per sample as in Sample.
  std::vector<at::Tensor> gt_lane_left_type;
  std::vector<at::Tensor> gt_lane_right_type;
  std::vector<at::Tensor> gt_instance_masks;
  // Areas as point sets, per sample as in Sample (empty unless collected).
  std::vector<at::Tensor> gt_areas;
  std::vector<at::Tensor> gt_area_labels;

  int64_t size() const { return static_cast<int64_t>(metas.size()); }
  bool has_gt() const { return !gt_lc.empty(); }
  // Every tensor moved to `device`; pinned host memory allows non_blocking
  // copies.
  Batch to(const c10::Device& device, bool non_blocking = false) const;
  // A copy whose host tensors are in pinned memory (for asynchronous CUDA
  // copies).
  Batch pin_memory() const;
};

// Stacks images (zero-padding bottom/right to the largest H/W, as the original
// collate does), lidar2img and can_bus; keeps metas and GT as lists. Throws on
// an empty list or mixed GT.
Batch collate(std::vector<Sample> samples);

}  // namespace olv2
