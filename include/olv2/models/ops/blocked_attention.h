#pragma once
// Exact softmax attention computed block by block of queries, so that the whole weights never exist
// at once.
#include <ATen/core/Tensor.h>

#include <cstdint>

namespace olv2 {

// Softmax attention computed block of queries by block of queries, so that the Lq x Lk weights
// never exist whole: forward keeps only its inputs, and backward computes each block's weights
// again (the lane head's encoder attends over every one of the 5000 BEV cells: its weights, their
// dropout mask and the dropped weights are 400 MB each when materialised). Every row sees all
// keys, so each row's softmax and its backward are the very operations of the materialised
// kernel. Dropout with probability `dropout_p` uses the counter-based mask of `seed`
// (counter_dropout.h), defined over the virtual [B * H, Lq, Lk] weights.
// scaled_q [B, H, Lq, D] (already divided by sqrt(D)), k and v [B, H, Lk, D], one dtype on the
// CPU; key_padding_mask [B, Lk] bool, true = ignored (undefined = none). `block_elements`: the
// most weights held at once (rounded to whole rows). Returns [B, H, Lq, D].
at::Tensor blocked_attention(const at::Tensor& scaled_q, const at::Tensor& k, const at::Tensor& v,
                             const at::Tensor& key_padding_mask, double dropout_p, uint64_t seed,
                             int64_t block_elements = int64_t{1} << 20);

}  // namespace olv2
