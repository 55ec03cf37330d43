#include "olv2/models/layers/attention.h"

#include <torch/torch.h>

#include <cmath>
#include <limits>

namespace olv2 {

at::Tensor dot_product_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                 const at::Tensor& key_padding_mask, double dropout_p,
                                 bool training) {
  const int64_t batch = q.size(0);
  const int64_t heads = q.size(1);
  const int64_t query_len = q.size(2);
  const int64_t key_len = k.size(2);
  const int64_t head_dim = q.size(3);
  // Same operation order as PyTorch's multi_head_attention_forward: scale q, then q k^T.
  const at::Tensor scaled_q =
      (q / std::sqrt(static_cast<double>(head_dim))).reshape({batch * heads, query_len, head_dim});
  at::Tensor scores =
      torch::bmm(scaled_q, k.reshape({batch * heads, key_len, head_dim}).transpose(1, 2));
  if (key_padding_mask.defined()) {
    scores = scores.view({batch, heads, query_len, key_len})
                 .masked_fill(key_padding_mask.view({batch, 1, 1, key_len}),
                              -std::numeric_limits<float>::infinity())
                 .view({batch * heads, query_len, key_len});
  }
  at::Tensor weights = torch::softmax(scores, -1);
  if (training && dropout_p > 0.0) weights = torch::dropout(weights, dropout_p, true);
  return torch::bmm(weights, v.reshape({batch * heads, key_len, head_dim}))
      .view({batch, heads, query_len, head_dim});
}

}  // namespace olv2
