#include "olv2/data/batch.h"

#include <ATen/ATen.h>

#include <algorithm>

#include "olv2/util/error.h"

namespace olv2 {
namespace {

// The batch tensor itself when the loader had every sample's images written into consecutive
// slices of one (SampleSource's images_into); undefined otherwise.
at::Tensor batch_holding_images(const std::vector<Sample>& samples) {
  const at::Tensor& first = samples[0].img;
  for (size_t k = 0; k < samples.size(); ++k) {
    const at::Tensor& img = samples[k].img;
    if (!img.is_contiguous() || img.sizes() != first.sizes() ||
        !img.storage().is_alias_of(first.storage()) ||
        img.storage_offset() != first.storage_offset() + static_cast<int64_t>(k) * first.numel()) {
      return {};
    }
  }
  std::vector<int64_t> sizes{static_cast<int64_t>(samples.size())};
  sizes.insert(sizes.end(), first.sizes().begin(), first.sizes().end());
  const int64_t elements = static_cast<int64_t>(samples.size()) * first.numel();
  return at::empty({0}, first.options())
      .set_(first.storage(), first.storage_offset(), {elements}, {1})
      .view(sizes);
}

// Stacks [N, 3, H, W] images, zero-padding each to the largest H and W (the
// original collate).
at::Tensor stack_images(const std::vector<Sample>& samples) {
  if (at::Tensor batch = batch_holding_images(samples); batch.defined()) return batch;
  int64_t H = 0, W = 0;
  bool same = true;
  for (const Sample& s : samples) {
    H = std::max(H, s.img.size(2));
    W = std::max(W, s.img.size(3));
    same = same && s.img.sizes() == samples[0].img.sizes();
  }
  if (same) {
    std::vector<at::Tensor> images;
    for (const Sample& s : samples) images.push_back(s.img);
    return at::stack(images);
  }
  const int64_t cams = samples[0].img.size(0);
  at::Tensor out =
      at::zeros({static_cast<int64_t>(samples.size()), cams, 3, H, W}, samples[0].img.options());
  for (size_t b = 0; b < samples.size(); ++b) {
    const at::Tensor& img = samples[b].img;
    if (img.size(0) != cams) throw runtime_error("collate: samples have different camera counts");
    out[static_cast<int64_t>(b)].narrow(2, 0, img.size(2)).narrow(3, 0, img.size(3)).copy_(img);
  }
  return out;
}

std::vector<at::Tensor> moved(const std::vector<at::Tensor>& tensors, const c10::Device& device,
                              bool non_blocking) {
  std::vector<at::Tensor> out;
  out.reserve(tensors.size());
  // A key the pipeline did not collect stays undefined.
  for (const at::Tensor& t : tensors) {
    out.push_back(t.defined() ? t.to(device, non_blocking) : t);
  }
  return out;
}

std::vector<at::Tensor> pinned(const std::vector<at::Tensor>& tensors) {
  std::vector<at::Tensor> out;
  out.reserve(tensors.size());
  for (const at::Tensor& t : tensors) out.push_back(t.defined() ? t.pin_memory() : t);
  return out;
}

}  // namespace

Batch collate(std::vector<Sample> samples) {
  if (samples.empty()) throw runtime_error("collate: no samples");
  const bool with_gt = samples[0].has_gt();
  Batch batch;
  std::vector<at::Tensor> lidar2img, can_bus;
  for (Sample& s : samples) {
    if (!s.img.defined())
      throw runtime_error("collate: a sample has no image (Collect must keep `img`)");
    if (s.has_gt() != with_gt)
      throw runtime_error("collate: samples with and without ground truth");
    lidar2img.push_back(s.lidar2img);
    can_bus.push_back(s.can_bus);
    batch.metas.push_back(std::move(s.meta));
    batch.indices.push_back(s.index);
    if (with_gt) {
      batch.gt_lc.push_back(s.gt_lc);
      batch.gt_lc_labels.push_back(s.gt_lc_labels);
      batch.gt_te.push_back(s.gt_te);
      batch.gt_te_labels.push_back(s.gt_te_labels);
      batch.gt_topology_lclc.push_back(s.gt_topology_lclc);
      batch.gt_topology_lcte.push_back(s.gt_topology_lcte);
      if (s.gt_instance_masks.defined() != samples.front().gt_instance_masks.defined()) {
        throw runtime_error("collate: samples with and without lane-segment ground truth");
      }
      if (s.gt_instance_masks.defined()) {
        batch.gt_lane_left_type.push_back(s.gt_lane_left_type);
        batch.gt_lane_right_type.push_back(s.gt_lane_right_type);
        batch.gt_instance_masks.push_back(s.gt_instance_masks);
      }
      if (s.gt_areas.defined() != samples.front().gt_areas.defined()) {
        throw runtime_error("collate: samples with and without areas");
      }
      if (s.gt_areas.defined()) {
        batch.gt_areas.push_back(s.gt_areas);
        batch.gt_area_labels.push_back(s.gt_area_labels);
      }
    }
  }
  batch.images = stack_images(samples);
  batch.lidar2img = at::stack(lidar2img);
  batch.can_bus = at::stack(can_bus);
  return batch;
}

Batch Batch::to(const c10::Device& device, bool non_blocking) const {
  Batch out;
  out.images = images.to(device, non_blocking);
  out.lidar2img = lidar2img.to(device, non_blocking);
  out.can_bus = can_bus.to(device, non_blocking);
  out.metas = metas;
  out.indices = indices;
  out.gt_lc = moved(gt_lc, device, non_blocking);
  out.gt_lc_labels = moved(gt_lc_labels, device, non_blocking);
  out.gt_te = moved(gt_te, device, non_blocking);
  out.gt_te_labels = moved(gt_te_labels, device, non_blocking);
  out.gt_topology_lclc = moved(gt_topology_lclc, device, non_blocking);
  out.gt_topology_lcte = moved(gt_topology_lcte, device, non_blocking);
  out.gt_lane_left_type = moved(gt_lane_left_type, device, non_blocking);
  out.gt_lane_right_type = moved(gt_lane_right_type, device, non_blocking);
  out.gt_instance_masks = moved(gt_instance_masks, device, non_blocking);
  out.gt_areas = moved(gt_areas, device, non_blocking);
  out.gt_area_labels = moved(gt_area_labels, device, non_blocking);
  return out;
}

Batch Batch::pin_memory() const {
  Batch out;
  out.images = images.pin_memory();
  out.lidar2img = lidar2img.pin_memory();
  out.can_bus = can_bus.pin_memory();
  out.metas = metas;
  out.indices = indices;
  out.gt_lc = pinned(gt_lc);
  out.gt_lc_labels = pinned(gt_lc_labels);
  out.gt_te = pinned(gt_te);
  out.gt_te_labels = pinned(gt_te_labels);
  out.gt_topology_lclc = pinned(gt_topology_lclc);
  out.gt_topology_lcte = pinned(gt_topology_lcte);
  out.gt_lane_left_type = pinned(gt_lane_left_type);
  out.gt_lane_right_type = pinned(gt_lane_right_type);
  out.gt_instance_masks = pinned(gt_instance_masks);
  out.gt_areas = pinned(gt_areas);
  out.gt_area_labels = pinned(gt_area_labels);
  return out;
}

}  // namespace olv2
