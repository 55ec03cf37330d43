#pragma once
// OpenLane-V2's `BEVFormerConstructer`: the BEV built by a BEVFormer encoder from multi-camera
// features and the can_bus vector.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/models/bev/bev_constructor.h"
#include "olv2/models/bev/bevformer_encoder.h"
#include "olv2/models/layers/learned_positional_encoding.h"

namespace olv2 {

// Defaults: the full baseline_large config. The nested options repeat embed_dims, the camera
// count and the level count as the original's config does; the constructor checks they agree.
struct BevFormerConstructerOptions : BevConstructorOptions {
  int64_t embed_dims = 256;
  int64_t num_feature_levels = 4;
  int64_t num_cams = 7;
  int64_t bev_h = 100;
  int64_t bev_w = 200;
  bool use_can_bus = true;
  bool can_bus_norm = true;  // LayerNorm at the end of can_bus_mlp
  bool use_cams_embeds = true;
  BevFormerEncoderOptions encoder;
  LearnedPositionalEncodingOptions positional_encoding;  // num_feats 128, 100 rows, 200 columns

  // OpenLane-V2's `type: BEVFormerConstructer` (rotate_prev_bev, use_shift, pc_range and
  // rotate_center are accepted: only the path without a previous BEV runs).
  static Schema schema();
  // `scope`: the registry scope its attentions are read in (Registry::read).
  static BevFormerConstructerOptions from_config(const ConfigNode& section,
                                                 const std::string& scope = "");
  // Checkpointed: each encoder layer a segment, since one segment for the whole stage would
  // rebuild every layer's graph at once in backward, the peak it is meant to avoid.
  std::shared_ptr<BevConstructorImpl> build(bool checkpointed) const override;
};

// OpenLane-V2's `BEVFormerConstructer`: learned BEV queries plus an MLP embedding of the
// can_bus vector, refined by the BEVFormer encoder over the multi-camera FPN features (with
// per-camera and per-level embeddings added to the image tokens).
// Only the original's path without a previous BEV is implemented: it is the only one that
// runs (spec §2.2), so the BEV shift and rotation from the ego motion are not computed.
// Parameters `level_embeds`, `cams_embeds`, `encoder.*`, `positional_encoding.*`,
// `bev_embedding.weight`, `can_bus_mlp.{0,2,norm}.*`.
class BevFormerConstructerImpl : public BevConstructorImpl {
 public:
  explicit BevFormerConstructerImpl(const BevFormerConstructerOptions& options);

  // mlvl_feats: per level [B, N_cam, C, h, w]; lidar2img [B, N_cam, 4, 4] (cast to float32);
  // img_hw: (height, width) of camera 0 of sample 0's un-padded image, the point-sampling
  // normaliser; can_bus [B, 18] (cast to float32). Returns bev_feats [B, bev_h * bev_w, C],
  // flat index row * bev_w + column.
  at::Tensor forward(const std::vector<at::Tensor>& mlvl_feats, const at::Tensor& lidar2img,
                     std::pair<int64_t, int64_t> img_hw, const at::Tensor& can_bus);
  // The same from the batch's lidar2img and can_bus and sample 0's front-camera image size, as
  // the original, returned as [B, C, bev_h, bev_w] (a view of the flat output).
  at::Tensor forward(const std::vector<at::Tensor>& levels, const Batch& batch) override;

  void set_dropout(double p) override { encoder_->set_dropout(p); }
  // The original's init_weights: Xavier-uniform on every tensor of two or more dimensions, then
  // the deformable attentions' own init, then level and camera embeddings ~ N(0, 1).
  void reset_parameters();

 private:
  void check_options() const;
  at::Tensor can_bus_embedding(const at::Tensor& can_bus);  // [B, 18] -> [B, C]
  at::Tensor image_tokens(const std::vector<at::Tensor>& mlvl_feats,
                          SpatialShapes& spatial_shapes) const;  // -> [B, N_cam, S, C]

  BevFormerConstructerOptions options_;
  BevFormerEncoder encoder_{nullptr};
  LearnedPositionalEncoding positional_encoding_{nullptr};
  torch::nn::Embedding bev_embedding_{nullptr};
  at::Tensor level_embeds_;  // [num_feature_levels, C]
  at::Tensor cams_embeds_;   // [num_cams, C]
  torch::nn::Sequential can_bus_mlp_{nullptr};
  torch::nn::Linear can_bus_fc1_{nullptr};
  torch::nn::Linear can_bus_fc2_{nullptr};
  torch::nn::LayerNorm can_bus_layer_norm_{nullptr};
};
TORCH_MODULE(BevFormerConstructer);

// TopoNet's BEVFormerConstructer, which LaneSegNet copied unchanged: the subset-A defaults with
// TopoNet's copy of the temporal self-attention (TemporalSelfAttentionCode::kTopoNet).
std::shared_ptr<const BevConstructorOptions> toponet_bevformer_constructer();

}  // namespace olv2
