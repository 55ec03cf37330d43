#pragma once
// BEVFormer's encoder: its reference points and layers, without a previous BEV.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/models/bev/bevformer_layer.h"

namespace olv2 {

struct BevFormerEncoderOptions {
  int64_t num_layers = 3;
  int64_t num_points_in_pillar = 4;
  BevRange pc_range = {-51.2, -25.6, -2.3, 51.2, 25.6, 1.7};
  BevFormerLayerOptions layer;
  // Recompute each layer in backward (activation checkpointing) while training with gradients.
  bool checkpoint_layers = false;

  // `type: BEVFormerEncoder` of BEVFormerLayers (return_intermediate: false only).
  static Schema schema();
  // `scope`: the registry scope its attentions are read in (Registry::read).
  static BevFormerEncoderOptions from_config(const ConfigNode& section,
                                             const std::string& scope = "");
};

// BEVFormer's encoder without a previous BEV: builds the pillar anchors, projects them into
// the cameras and the TSA reference points (two copies of the BEV cell centres per sample),
// then runs `layers.i` in turn. Returns the last layer's output (no final norm).
class BevFormerEncoderImpl : public torch::nn::Module {
 public:
  explicit BevFormerEncoderImpl(const BevFormerEncoderOptions& options);

  // bev_query, bev_pos [B, bev_h * bev_w, E]; tokens [B, N_cam, S, E]; lidar2img
  // [B, N_cam, 4, 4]; img_hw the point-sampling normaliser (see project_reference_points)
  // -> [B, bev_h * bev_w, E]
  at::Tensor forward(const at::Tensor& bev_query, const at::Tensor& bev_pos,
                     std::pair<int64_t, int64_t> bev_hw, const at::Tensor& tokens,
                     const SpatialShapes& spatial_shapes, const at::Tensor& lidar2img,
                     std::pair<int64_t, int64_t> img_hw);

  void set_dropout(double p);
  std::vector<BevFormerLayer>& layers() { return layer_modules_; }

 private:
  BevFormerEncoderOptions options_;
  torch::nn::ModuleList layers_{nullptr};
  std::vector<BevFormerLayer> layer_modules_;
};
TORCH_MODULE(BevFormerEncoder);

}  // namespace olv2
