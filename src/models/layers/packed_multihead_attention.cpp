#include "olv2/models/layers/packed_multihead_attention.h"

#include <torch/torch.h>

#include "olv2/models/ops/attention.h"
#include "olv2/util/error.h"

namespace olv2 {

PackedMultiheadAttentionImpl::PackedMultiheadAttentionImpl(int64_t embed_dims, int64_t num_heads,
                                                           double attn_drop)
    : embed_dims_(embed_dims), num_heads_(num_heads), attn_drop_(attn_drop) {
  if (num_heads <= 0 || embed_dims % num_heads != 0) {
    throw input_error("multi-head attention: embed_dims " + std::to_string(embed_dims) +
                      " is not divisible by num_heads " + std::to_string(num_heads));
  }
  in_proj_weight_ =
      register_parameter("in_proj_weight", torch::empty({3 * embed_dims, embed_dims}));
  in_proj_bias_ = register_parameter("in_proj_bias", torch::empty({3 * embed_dims}));
  out_proj_ = register_module("out_proj", torch::nn::Linear(embed_dims, embed_dims));
  reset_parameters();
}

void PackedMultiheadAttentionImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  torch::nn::init::xavier_uniform_(in_proj_weight_);
  in_proj_bias_.zero_();
  out_proj_->bias.zero_();
}

at::Tensor PackedMultiheadAttentionImpl::forward(const at::Tensor& query, const at::Tensor& key,
                                                 const at::Tensor& value,
                                                 const at::Tensor& key_padding_mask) {
  const int64_t query_len = query.size(0);
  const int64_t batch = query.size(1);
  const int64_t key_len = key.size(0);
  const int64_t head_dim = embed_dims_ / num_heads_;
  const auto weights = in_proj_weight_.chunk(3);
  const auto biases = in_proj_bias_.chunk(3);
  // [L, B, E] -> [B, H, L, D], heads split from the embedding as PyTorch does.
  const auto split_heads = [&](const at::Tensor& x, int64_t length) {
    return x.contiguous().view({length, batch, num_heads_, head_dim}).permute({1, 2, 0, 3});
  };
  const at::Tensor q = split_heads(torch::linear(query, weights[0], biases[0]), query_len);
  const at::Tensor k = split_heads(torch::linear(key, weights[1], biases[1]), key_len);
  const at::Tensor v = split_heads(torch::linear(value, weights[2], biases[2]), key_len);
  const at::Tensor attended =
      dot_product_attention(q, k, v, key_padding_mask, attn_drop_, is_training());
  // [B, H, Lq, D] -> [Lq, B, E]
  return out_proj_(attended.permute({2, 0, 1, 3}).reshape({query_len, batch, embed_dims_}));
}

}  // namespace olv2
