#include "olv2/data/fixture_sample.h"

#include <torch/torch.h>

#include <array>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "olv2/util/error.h"
#include "olv2/util/pth/pth_file.h"
#include "olv2/util/state_dict.h"

namespace olv2 {
namespace {

std::map<std::string, at::Tensor> read_tensors(const std::filesystem::path& path) {
  std::map<std::string, at::Tensor> tensors;
  for (auto& [name, tensor] : tensors_of(read_pth(path))) tensors[name] = tensor;
  return tensors;
}

const at::Tensor& require(const std::map<std::string, at::Tensor>& tensors, const std::string& key,
                          const std::filesystem::path& file, int64_t dims) {
  const auto found = tensors.find(key);
  if (found == tensors.end()) throw input_error(file.string() + ": key `" + key + "` missing");
  if (found->second.dim() != dims) {
    throw input_error(file.string() + ": key `" + key + "`: expected " + std::to_string(dims) +
                      " dimensions, got " + std::to_string(found->second.dim()));
  }
  return found->second;
}

// The frames' images [B, N, 3, H, W]: `img` as given, or forward_train's [B, queue, N, 3, H, W]
// with a queue of one frame.
at::Tensor frame_images(const std::map<std::string, at::Tensor>& tensors,
                        const std::filesystem::path& file) {
  const auto found = tensors.find("img");
  if (found == tensors.end() || found->second.dim() != 6) return require(tensors, "img", file, 5);
  if (found->second.size(1) != 1) {
    throw input_error(file.string() + ": key `img`: a queue of " +
                      std::to_string(found->second.size(1)) +
                      " frames; the detectors run the first-frame path (no previous BEV), a "
                      "queue of 1");
  }
  return found->second.select(1, 0);
}

// Each ground-truth key under the original forward_train's argument name, then the older
// fixtures' name.
const std::array<std::pair<const char*, const char*>, 12> kGroundTruthKeys = {{
    {"gt_lanes_3d", "gt_lc"},
    {"gt_lane_labels_3d", "gt_lc_labels"},
    {"gt_bboxes", "gt_te"},
    {"gt_labels", "gt_te_labels"},
    {"gt_lane_adj", "gt_topology_lclc"},
    {"gt_lane_lcte_adj", "gt_topology_lcte"},
    // Lane segments (LaneSegNet's forward_train) only.
    {"gt_lane_left_type", "gt_lane_left_type"},
    {"gt_lane_right_type", "gt_lane_right_type"},
    {"gt_instance_masks", "gt_instance_masks"},
    // The Map Element Bucket's forward_train only: its lane-segment to traffic-element adjacency
    // and its areas.
    {"gt_lane_lste_adj", "gt_topology_lcte"},
    {"gt_areas_3d", "gt_areas"},
    {"gt_area_labels_3d", "gt_area_labels"},
}};
constexpr size_t kFirstLaneSegmentKey = 6;
constexpr size_t kFirstBucketKey = 9;

}  // namespace

Batch read_fixture_batch(const std::filesystem::path& file, bool with_gt,
                         const std::vector<int64_t>& frames) {
  const auto t = read_tensors(file);
  const at::Tensor images = frame_images(t, file).to(torch::kFloat);
  const at::Tensor lidar2img = require(t, "lidar2img", file, 4);
  const at::Tensor can_bus =
      t.count("can_bus") ? t.at("can_bus") : torch::zeros({images.size(0), 18}, torch::kDouble);
  const at::Tensor img_shape = require(t, "img_shape", file, 3).to(torch::kLong);
  const at::Tensor pad_shape = require(t, "pad_shape", file, 3).to(torch::kLong);
  const at::Tensor scale = require(t, "scale_factor", file, 2).to(torch::kFloat);
  const at::Tensor crop_shape =
      t.count("crop_shape") ? require(t, "crop_shape", file, 3).to(torch::kLong) : at::Tensor();
  // Checked, not read: the first-frame path aligns no previous BEV.
  const at::Tensor rotation = t.count("lidar2global_rotation")
                                  ? require(t, "lidar2global_rotation", file, 3)
                                  : torch::zeros({images.size(0), 3, 3});
  const int64_t count = images.size(0);
  for (const auto& [key, tensor] : {std::pair{"lidar2img", lidar2img},
                                    {"can_bus", can_bus},
                                    {"img_shape", img_shape},
                                    {"pad_shape", pad_shape},
                                    {"scale_factor", scale},
                                    {"lidar2global_rotation", rotation}}) {
    if (tensor.size(0) != count) {
      throw input_error(file.string() + ": key `" + key + "`: " + std::to_string(tensor.size(0)) +
                        " frames, `img` has " + std::to_string(count));
    }
  }
  std::vector<int64_t> selected = frames;
  if (selected.empty()) {
    for (int64_t b = 0; b < count; ++b) selected.push_back(b);
  }
  for (const int64_t b : selected) {
    if (b < 0 || b >= count) {
      throw input_error(file.string() + ": frame " + std::to_string(b) +
                        " asked for, the file has " + std::to_string(count));
    }
  }
  const at::Tensor index = torch::tensor(selected, torch::kLong);
  Batch batch;
  batch.images = images.index_select(0, index).contiguous();
  batch.lidar2img = lidar2img.index_select(0, index).contiguous();
  batch.can_bus = can_bus.index_select(0, index).contiguous();
  if (crop_shape.defined() && crop_shape.size(0) != count) {
    throw input_error(file.string() + ": key `crop_shape`: " + std::to_string(crop_shape.size(0)) +
                      " frames, `img` has " + std::to_string(count));
  }
  // Whether frame b has `name` (kGroundTruthKeys) under either of its names.
  const auto has = [&](size_t name, int64_t b) {
    for (const char* key : {kGroundTruthKeys[name].first, kGroundTruthKeys[name].second}) {
      if (t.count(std::string(key) + "." + std::to_string(b)) || (count == 1 && t.count(key))) {
        return true;
      }
    }
    return false;
  };
  // Frame b's `name` (kGroundTruthKeys), as `<name>.<b>`, or `<name>` in a one-frame file.
  const auto gt = [&](size_t name, int64_t b, int64_t dims) {
    for (const char* key : {kGroundTruthKeys[name].first, kGroundTruthKeys[name].second}) {
      const std::string framed = std::string(key) + "." + std::to_string(b);
      if (t.count(framed)) return require(t, framed, file, dims);
      if (count == 1 && t.count(key)) return require(t, key, file, dims);
    }
    const std::string key = kGroundTruthKeys[name].first;
    return require(t, count == 1 ? key : key + "." + std::to_string(b), file, dims);
  };
  for (const int64_t b : selected) {
    ImageMeta meta;
    meta.scene_token = file.stem().string();
    meta.sample_idx = std::to_string(b);
    for (int64_t cam = 0; cam < img_shape.size(1); ++cam) {
      meta.img_shape.push_back(std::array<int64_t, 3>{img_shape[b][cam][0].item<int64_t>(),
                                                      img_shape[b][cam][1].item<int64_t>(),
                                                      img_shape[b][cam][2].item<int64_t>()});
      meta.pad_shape.push_back(std::array<int64_t, 3>{pad_shape[b][cam][0].item<int64_t>(),
                                                      pad_shape[b][cam][1].item<int64_t>(),
                                                      pad_shape[b][cam][2].item<int64_t>()});
    }
    for (int64_t k = 0; k < 4; ++k) meta.scale_factor[k] = scale[b][k].item<float>();
    if (crop_shape.defined()) {
      for (int64_t cam = 0; cam < crop_shape.size(1); ++cam) {
        meta.crop_shape.push_back(
            {crop_shape[b][cam][0].item<int64_t>(), crop_shape[b][cam][1].item<int64_t>()});
      }
    }
    batch.metas.push_back(meta);
    batch.indices.push_back(b);
    if (with_gt) {
      // Lane-segment frames have line types and instance masks, and traffic elements only where
      // the file gives them.
      const bool segments = has(kFirstLaneSegmentKey + 2, b);
      const auto optional = [&](size_t name, int64_t dims) {
        return segments && !has(name, b) ? at::Tensor() : gt(name, b, dims);
      };
      batch.gt_lc.push_back(gt(0, b, 2));
      batch.gt_lc_labels.push_back(gt(1, b, 1));
      batch.gt_te.push_back(optional(2, 2));
      batch.gt_te_labels.push_back(optional(3, 1));
      batch.gt_topology_lclc.push_back(gt(4, b, 2));
      batch.gt_topology_lcte.push_back(has(kFirstBucketKey, b) ? gt(kFirstBucketKey, b, 2)
                                                               : optional(5, 2));
      if (segments) {
        batch.gt_lane_left_type.push_back(gt(kFirstLaneSegmentKey, b, 1));
        batch.gt_lane_right_type.push_back(gt(kFirstLaneSegmentKey + 1, b, 1));
        batch.gt_instance_masks.push_back(gt(kFirstLaneSegmentKey + 2, b, 3));
      }
      if (has(kFirstBucketKey + 1, b)) {
        batch.gt_areas.push_back(gt(kFirstBucketKey + 1, b, 3));
        batch.gt_area_labels.push_back(gt(kFirstBucketKey + 2, b, 1));
      }
    }
  }
  return batch;
}

Batch scale_fixture_sample(const Batch& batch, int64_t scale) {
  if (scale < 1) throw input_error("scale must be at least 1, got " + std::to_string(scale));
  if (scale == 1) return batch;
  if (batch.size() != 1) throw input_error("scale_fixture_sample: expected one sample");
  Batch out = batch;
  ImageMeta& meta = out.metas[0];
  const int64_t valid_h = meta.img_shape.at(0)[0], valid_w = meta.img_shape.at(0)[1];
  for (const auto& shape : meta.img_shape) {
    if (shape[0] != valid_h || shape[1] != valid_w)
      throw input_error("scale_fixture_sample: the cameras' valid sizes differ");
  }
  const at::Tensor valid =
      batch.images[0].narrow(2, 0, valid_h).narrow(3, 0, valid_w);  // [N, 3, h, w]
  const at::Tensor resized = torch::nn::functional::interpolate(
      valid, torch::nn::functional::InterpolateFuncOptions()
                 .size(std::vector<int64_t>{valid_h * scale, valid_w * scale})
                 .mode(torch::kBilinear)
                 .align_corners(false));
  const int64_t padded_h = batch.images.size(3) * scale, padded_w = batch.images.size(4) * scale;
  out.images = torch::constant_pad_nd(
                   resized, {0, padded_w - valid_w * scale, 0, padded_h - valid_h * scale}, 0.0)
                   .unsqueeze(0)
                   .contiguous();
  for (auto& shape : meta.img_shape) shape = {shape[0] * scale, shape[1] * scale, shape[2]};
  for (auto& shape : meta.pad_shape) shape = {shape[0] * scale, shape[1] * scale, shape[2]};
  out.lidar2img = batch.lidar2img.clone();
  out.lidar2img.narrow(2, 0, 2).mul_(static_cast<double>(scale));
  for (at::Tensor& boxes : out.gt_te) boxes = boxes * static_cast<double>(scale);
  return out;
}

}  // namespace olv2
