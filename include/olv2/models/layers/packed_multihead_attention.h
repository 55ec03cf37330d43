#pragma once
// PyTorch's `nn.MultiheadAttention` with its packed parameter layout, under mmcv's attention.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

namespace olv2 {

// PyTorch's `nn.MultiheadAttention` with its parameter layout: packed
// `in_proj_weight` [3E, E] (rows Q, K, V), `in_proj_bias` [3E], `out_proj`
// Linear E -> E. Sequence-first tensors: query [Lq, B, E], key and value [Lk,
// B, E]; key_padding_mask [B, Lk] (true = ignored). Dropout `attn_drop` acts on
// the attention weights. Returns [Lq, B, E].
class PackedMultiheadAttentionImpl : public torch::nn::Module {
 public:
  PackedMultiheadAttentionImpl(int64_t embed_dims, int64_t num_heads, double attn_drop);
  at::Tensor forward(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                     const at::Tensor& key_padding_mask);
  void reset_parameters();  // PyTorch's default: Xavier-uniform in_proj, zero biases
  void set_attn_drop(double p) { attn_drop_ = p; }

 private:
  int64_t embed_dims_;
  int64_t num_heads_;
  double attn_drop_;
  at::Tensor in_proj_weight_;
  at::Tensor in_proj_bias_;
  torch::nn::Linear out_proj_{nullptr};
};
TORCH_MODULE(PackedMultiheadAttention);

}  // namespace olv2
