#pragma once
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

#include <string>
#include <vector>

#include "olv2/models/layers/ffn.h"
#include "olv2/models/layers/multihead_attention.h"

namespace olv2 {

struct TransformerLayerOptions {
  MultiheadAttentionOptions attention;  // shared by every attention of the layer
  FfnOptions ffn;
  // Any sequence of "self_attn", "cross_attn", "norm", "ffn"; a leading "norm"
  // means pre-norm.
  std::vector<std::string> operation_order = {"self_attn", "norm", "ffn", "norm"};
  double norm_eps = 1e-5;
};

// mmcv `BaseTransformerLayer` (also `DetrTransformerDecoderLayer`): runs
// `operation_order` over sequence-first tensors [L, B, E]. Submodules
// `attentions.i`, `ffns.i`, `norms.i` in the order they appear. Self-attention
// uses `query_pos` for both query and key and `query_key_padding_mask`;
// cross-attention attends to `key`/`value` with `key_pos` and
// `key_padding_mask`.
class TransformerLayerImpl : public torch::nn::Module {
 public:
  explicit TransformerLayerImpl(const TransformerLayerOptions& options);
  at::Tensor forward(at::Tensor query, const at::Tensor& key, const at::Tensor& value,
                     const at::Tensor& query_pos, const at::Tensor& key_pos,
                     const at::Tensor& query_key_padding_mask, const at::Tensor& key_padding_mask);
  void set_dropout(double p);
  void reset_parameters();  // mmdet transformer init: Xavier Linears, LayerNorm
                            // (1, 0)
  bool pre_norm() const { return pre_norm_; }

 private:
  TransformerLayerOptions options_;
  bool pre_norm_;
  torch::nn::ModuleList attentions_{nullptr};
  torch::nn::ModuleList ffns_{nullptr};
  torch::nn::ModuleList norms_{nullptr};
};
TORCH_MODULE(TransformerLayer);

}  // namespace olv2
