#pragma once
// mmcv's `MultiheadAttention`: PyTorch's attention with positional embeddings, dropout, residual.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/pimpl.h>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/models/attention_registry.h"
#include "olv2/models/layers/packed_multihead_attention.h"

namespace olv2 {

struct MultiheadAttentionOptions : AttentionOptions {
  int64_t embed_dims = 64;
  int64_t num_heads = 4;
  // mmcv's deprecated `dropout` argument: both the attention-weight dropout and
  // the dropout on the output before the residual sum.
  double dropout = 0.1;

  // mmcv `type: MultiheadAttention` as a layer's `attn_cfgs` entry.
  static Schema schema();
  // mmcv's default for an absent `dropout` is none.
  static MultiheadAttentionOptions from_config(const ConfigNode& section);
};

// mmcv `MultiheadAttention`: wraps PyTorch's attention (registered as `attn`),
// adds the positional embeddings to query and key (never to value) and returns
// `identity + Dropout(attn_out)`, identity defaulting to the query before its
// positional embedding. Sequence-first tensors [L, B, E].
class MultiheadAttentionImpl : public torch::nn::Module {
 public:
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options);
  // `key_pos` undefined: `query_pos` is used for the key when the shapes agree
  // (mmcv).
  at::Tensor forward(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                     const at::Tensor& identity, const at::Tensor& query_pos,
                     const at::Tensor& key_pos, const at::Tensor& key_padding_mask);
  PackedMultiheadAttention& attn() { return attn_; }
  void set_dropout(double p);

 private:
  MultiheadAttentionOptions options_;
  PackedMultiheadAttention attn_{nullptr};
  torch::nn::Dropout dropout_layer_{nullptr};
};
TORCH_MODULE(MultiheadAttention);

}  // namespace olv2
