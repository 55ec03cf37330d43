#include "olv2/data/fixture_sample.h"

#include <torch/torch.h>

#include <map>
#include <string>

#include "olv2/util/error.h"
#include "olv2/util/pth_file.h"
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

}  // namespace

Batch read_fixture_sample(const std::filesystem::path& file, bool with_gt) {
  const auto t = read_tensors(file);
  Batch batch;
  batch.images = require(t, "img", file, 5).to(torch::kFloat);
  batch.lidar2img = require(t, "lidar2img", file, 4);
  batch.can_bus = t.count("can_bus") ? t.at("can_bus") : torch::zeros({batch.images.size(0), 18});
  const at::Tensor img_shape = require(t, "img_shape", file, 3).to(torch::kLong);
  const at::Tensor pad_shape = require(t, "pad_shape", file, 3).to(torch::kLong);
  const at::Tensor scale = require(t, "scale_factor", file, 2).to(torch::kFloat);
  if (batch.images.size(0) != 1) throw input_error(file.string() + ": expected one sample (B = 1)");
  ImageMeta meta;
  meta.scene_token = file.stem().string();
  meta.sample_idx = "0";
  for (int64_t cam = 0; cam < img_shape.size(1); ++cam) {
    meta.img_shape.push_back(std::array<int64_t, 3>{img_shape[0][cam][0].item<int64_t>(),
                                                    img_shape[0][cam][1].item<int64_t>(),
                                                    img_shape[0][cam][2].item<int64_t>()});
    meta.pad_shape.push_back(std::array<int64_t, 3>{pad_shape[0][cam][0].item<int64_t>(),
                                                    pad_shape[0][cam][1].item<int64_t>(),
                                                    pad_shape[0][cam][2].item<int64_t>()});
  }
  for (int64_t k = 0; k < 4; ++k) meta.scale_factor[k] = scale[0][k].item<float>();
  batch.metas.push_back(meta);
  batch.indices.push_back(0);
  if (with_gt) {
    batch.gt_lc = {require(t, "gt_lc", file, 2)};
    batch.gt_lc_labels = {require(t, "gt_lc_labels", file, 1)};
    batch.gt_te = {require(t, "gt_te", file, 2)};
    batch.gt_te_labels = {require(t, "gt_te_labels", file, 1)};
    batch.gt_topology_lclc = {require(t, "gt_topology_lclc", file, 2)};
    batch.gt_topology_lcte = {require(t, "gt_topology_lcte", file, 2)};
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
