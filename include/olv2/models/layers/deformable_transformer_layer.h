#pragma once
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

#include <string>
#include <vector>

#include "olv2/models/layers/ffn.h"
#include "olv2/models/layers/multi_scale_deformable_attention.h"
#include "olv2/models/layers/multihead_attention.h"

namespace olv2 {

enum class AttentionKind { kMultihead, kDeformable };

struct DeformableTransformerLayerOptions {
  // One entry per attention of operation_order, in order (mmcv's `attn_cfgs` types).
  std::vector<AttentionKind> attentions = {AttentionKind::kMultihead, AttentionKind::kDeformable};
  MultiheadAttentionOptions multihead;
  MultiScaleDeformableAttentionOptions deformable;
  FfnOptions ffn;
  std::vector<std::string> operation_order = {"self_attn", "norm", "cross_attn",
                                              "norm",      "ffn",  "norm"};
  double norm_eps = 1e-5;
};

// mmcv `BaseTransformerLayer` whose attentions are PyTorch multi-head or multi-scale deformable
// ones: mmdet's Deformable-DETR encoder layer (deformable self-attention, FFN) and
// OpenLane-V2's `CustomDetrTransformerDecoderLayer` (multi-head self-attention, deformable
// cross-attention, FFN). Post-norm; submodules `attentions.i`, `ffns.0`, `norms.i`.
// Sequence-first: query [Q, B, E], value [S, B, E].
// A deformable self-attention samples the query itself with `query_key_padding_mask`; a
// deformable cross-attention samples `value` with `key_padding_mask`. Multi-head attention
// adds `query_pos` to query and key and takes no mask in self-attention.
class DeformableTransformerLayerImpl : public torch::nn::Module {
 public:
  explicit DeformableTransformerLayerImpl(const DeformableTransformerLayerOptions& options);

  at::Tensor forward(at::Tensor query, const at::Tensor& value, const at::Tensor& query_pos,
                     const at::Tensor& query_key_padding_mask, const at::Tensor& key_padding_mask,
                     const at::Tensor& reference_points, const SpatialShapes& spatial_shapes);

  void set_dropout(double p);
  // mmdet's transformer init: Xavier-uniform Linears with zero bias, then each deformable
  // attention's own init, LayerNorm (1, 0), PyTorch's in_proj init.
  void reset_parameters();

 private:
  DeformableTransformerLayerOptions options_;
  torch::nn::ModuleList attentions_{nullptr};
  torch::nn::ModuleList ffns_{nullptr};
  torch::nn::ModuleList norms_{nullptr};
};
TORCH_MODULE(DeformableTransformerLayer);

}  // namespace olv2
