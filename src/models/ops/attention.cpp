#include "olv2/models/ops/attention.h"

#include <ATen/record_function.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>

#include "olv2/models/ops/blocked_attention.h"
#include "olv2/models/ops/counter_dropout.h"
#include "olv2/models/ops/fused_attention.h"
#include "olv2/util/autocast_guard.h"
#include "olv2/util/compat.h"

namespace olv2 {
namespace {

// The weights materialised whole, as PyTorch's multi_head_attention_forward does; the kernel of
// accelerator devices, whose dropout draws from their own generator.
at::Tensor materialised_attention(const at::Tensor& scaled_q, const at::Tensor& k,
                                  const at::Tensor& v, const at::Tensor& key_padding_mask,
                                  double dropout_p) {
  const int64_t batch = scaled_q.size(0), heads = scaled_q.size(1), query_len = scaled_q.size(2),
                key_len = k.size(2), head_dim = scaled_q.size(3);
  at::Tensor scores = torch::bmm(scaled_q.reshape({batch * heads, query_len, head_dim}),
                                 k.reshape({batch * heads, key_len, head_dim}).transpose(1, 2));
  if (key_padding_mask.defined()) {
    scores = scores.view({batch, heads, query_len, key_len})
                 .masked_fill(key_padding_mask.view({batch, 1, 1, key_len}),
                              -std::numeric_limits<float>::infinity())
                 .view({batch * heads, query_len, key_len});
  }
  at::Tensor weights = torch::softmax(scores, -1);
  if (dropout_p > 0.0) weights = torch::dropout(weights, dropout_p, true);
  return torch::bmm(weights, v.reshape({batch * heads, key_len, head_dim}))
      .view({batch, heads, query_len, head_dim});
}

#if OLV2_TORCH_AT_LEAST(2, 1)
// PyTorch's fused attention (flash or memory-efficient kernels on CUDA): the weights are never
// materialised, which for the lane encoder's self-attention would be 4 x 5000 x 5000 per frame.
at::Tensor fused_sdpa(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                      const at::Tensor& key_padding_mask, double dropout_p) {
  at::Tensor attend;  // SDPA's boolean mask: true = the key takes part
  if (key_padding_mask.defined()) {
    attend = key_padding_mask.logical_not().view({q.size(0), 1, 1, k.size(2)});
  }
  return at::scaled_dot_product_attention(q, k, v, attend, dropout_p);
}
#endif

}  // namespace

at::Tensor dot_product_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                 const at::Tensor& key_padding_mask, double dropout_p,
                                 bool training) {
  // One scope for profilers and FLOP counters, whichever kernel runs below.
  RECORD_FUNCTION("olv2::dot_product_attention", std::vector<c10::IValue>({q, k}));
  const double p = training ? dropout_p : 0.0;
#if OLV2_TORCH_AT_LEAST(2, 1)
  if (q.device().is_cuda()) return fused_sdpa(q, k, v, key_padding_mask, p);
#endif
  // Same operation order as PyTorch's multi_head_attention_forward: scale q, then q k^T.
  const at::Tensor scaled_q = q / std::sqrt(static_cast<double>(q.size(3)));
  if (!q.device().is_cpu()) return materialised_attention(scaled_q, k, v, key_padding_mask, p);
  // Both products run in autocast's dtype when it is on (bmm is on its lower-precision list),
  // else in the inputs' common dtype; the kernel then runs with autocast off.
  const AutocastState autocast = AutocastState::current(c10::kCPU);
  const c10::ScalarType dtype =
      autocast.enabled ? autocast.dtype
                       : at::promote_types(scaled_q.scalar_type(),
                                           at::promote_types(k.scalar_type(), v.scalar_type()));
  const uint64_t seed = p > 0.0 ? draw_dropout_seed() : 0;
  const AutocastGuard no_autocast(c10::kCPU, AutocastState{false});
  const at::Tensor q_in = scaled_q.to(dtype), k_in = k.to(dtype), v_in = v.to(dtype);
  if (fused_attention_supports(q_in, k_in, v_in)) {
    return fused_attention(q_in, k_in, v_in, key_padding_mask, p, seed);
  }
  return blocked_attention(q_in, k_in, v_in, key_padding_mask, p, seed);
}

}  // namespace olv2
