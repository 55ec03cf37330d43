#pragma once
// The project's one attention kernel, dispatched to the fused, blocked or PyTorch implementation.
#include <ATen/core/Tensor.h>

namespace olv2 {

// The one attention kernel of the project, so that a faster or memory-lighter
// exact implementation can replace it without touching the layers that call it.
// q [B, H, Lq, D], k and v [B, H, Lk, D]; key_padding_mask [B, Lk] bool, true =
// the key is ignored (undefined = none). Softmax(q k^T / sqrt(D)) v with
// dropout of probability `dropout_p` on the attention weights when `training`. On the CPU it
// runs fused (fused_attention.h: fp32, head dimension 16, AVX2 or AVX-512) or else blocked
// (blocked_attention.h), both with the counter-based dropout mask; on CUDA it is PyTorch's
// scaled_dot_product_attention (flash or memory-efficient kernels, dropout from the CUDA
// generator; LibTorch 2.1 and later); elsewhere the weights are materialised.
// Returns [B, H, Lq, D].
at::Tensor dot_product_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                 const at::Tensor& key_padding_mask, double dropout_p,
                                 bool training);

}  // namespace olv2
