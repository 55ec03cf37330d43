#pragma once
// The CPU attention of the DETR heads fused per tile of queries, with AVX2 and AVX-512 code.
#include <ATen/core/Tensor.h>

#include <cstdint>

namespace olv2 {

// The CPU attention of the DETR heads (head dimension 16, fp32) in one pass per tile of queries:
// scores, softmax, dropout and the weighted sum of the values are computed while a tile's rows
// are in the core's cache, with SIMD code for AVX-512 or AVX2, instead of four library calls
// over block-sized buffers (blocked_attention.h, whose BLAS products at an inner dimension of 16
// and softmax passes ran at a third of this speed). Like the blocked kernel it keeps only its
// inputs for backward and computes each tile's weights again there; the dropout mask is the
// same counter-based one (counter_dropout.h), so both kernels drop the same weights for a seed.
// Sums run in another order than the library's and the exponential is a polynomial (at most
// 1.02 ulp from exp over every float of its domain [-87.34, 0]): results agree with the blocked
// kernel to float rounding. Its threads are LibTorch's (at::parallel_for, which needs this file
// compiled with OpenMP under LibTorch 1.13: CMakeLists.txt).

// The instruction sets the kernel has code for; kNone where the build or the CPU has neither.
enum class AttentionSimd { kNone, kAvx2, kAvx512 };

// The best of them this CPU runs (kNone for compilers without vector extensions, non-x86 CPUs).
AttentionSimd best_attention_simd();

// Whether fused_attention takes these operands: fp32 CPU tensors with a head dimension of 16
// and a CPU that runs one of the kernels.
bool fused_attention_supports(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v);

// The contract of blocked_attention: scaled_q [B, H, Lq, 16] (already divided by sqrt(D)), k and
// v [B, H, Lk, 16]; key_padding_mask [B, Lk] bool, true = ignored (undefined = none); dropout of
// probability `dropout_p` with the mask of `seed`. `simd` picks the code (tests run both).
// Returns [B, H, Lq, 16].
at::Tensor fused_attention(const at::Tensor& scaled_q, const at::Tensor& k, const at::Tensor& v,
                           const at::Tensor& key_padding_mask, double dropout_p, uint64_t seed,
                           AttentionSimd simd = best_attention_simd());

}  // namespace olv2
