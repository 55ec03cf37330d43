#pragma once
// BEVFormer's encoder layer: temporal self-attention, spatial cross-attention and FFN, each
// post-normed.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/models/bev/bev_reference_points.h"
#include "olv2/models/bev/spatial_cross_attention.h"
#include "olv2/models/bev/temporal_self_attention.h"
#include "olv2/models/layers/ffn.h"

namespace olv2 {

struct BevFormerLayerOptions {
  TemporalSelfAttentionOptions self_attention;
  SpatialCrossAttentionOptions cross_attention;
  FfnOptions ffn{256, 512, 2, 0.1};
  double norm_eps = 1e-5;

  // `type: BEVFormerLayer`: attentions (TemporalSelfAttention, SpatialCrossAttention), the FFN
  // and the order (self_attn, norm, cross_attn, norm, ffn, norm).
  static Schema schema();
  // `scope`: the registry scope its attentions are read in (Registry::read).
  static BevFormerLayerOptions from_config(const ConfigNode& section,
                                           const std::string& scope = "");
};

// What every encoder layer reads besides the BEV queries; built once per forward.
struct BevFormerLayerInputs {
  at::Tensor bev_pos;        // [B, Q, E] learned positional encoding
  at::Tensor hybrid_ref_2d;  // [B * 2, Q, 1, 2] TSA reference points
  SpatialShapes bev_shape;   // {(bev_h, bev_w)}
  at::Tensor tokens;         // [B, N_cam, S, E] image tokens with camera and level embeddings
  SpatialShapes spatial_shapes;
  CameraReferencePoints camera_points;
};

// BEVFormer's encoder layer, post-norm with the fixed order self_attn, norm, cross_attn, norm,
// ffn, norm: temporal self-attention over the BEV (with the positional encoding), spatial
// cross-attention into the cameras (without it), FFN; each adds its own residual.
// Submodules `attentions.{0,1}`, `ffns.0`, `norms.{0,1,2}`. Batch-first [B, Q, E].
class BevFormerLayerImpl : public torch::nn::Module {
 public:
  explicit BevFormerLayerImpl(const BevFormerLayerOptions& options);

  at::Tensor forward(const at::Tensor& query, const BevFormerLayerInputs& inputs);

  void set_dropout(double p);
  TemporalSelfAttention& self_attention() { return self_attention_; }
  SpatialCrossAttention& cross_attention() { return cross_attention_; }

 private:
  at::Tensor norm(size_t index, const at::Tensor& x) const;

  BevFormerLayerOptions options_;
  torch::nn::ModuleList attentions_{nullptr};
  torch::nn::ModuleList ffns_{nullptr};
  torch::nn::ModuleList norms_{nullptr};
  TemporalSelfAttention self_attention_{nullptr};
  SpatialCrossAttention cross_attention_{nullptr};
  Ffn ffn_{nullptr};
  std::vector<torch::nn::LayerNorm> norm_layers_;
};
TORCH_MODULE(BevFormerLayer);

}  // namespace olv2
