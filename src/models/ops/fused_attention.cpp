#include "olv2/models/ops/fused_attention.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/csrc/autograd/custom_function.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "olv2/models/ops/counter_dropout.h"
#include "olv2/util/error.h"

// GCC's and Clang's vector extensions compiled for AVX2 or AVX-512 in functions carrying those
// targets, chosen at run time. Not on Windows: GCC there does not align the stack for spilled
// 32- and 64-byte vectors.
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(_WIN32)
#define OLV2_ATTENTION_SIMD 1
#endif

namespace olv2 {
namespace {

constexpr int64_t kHeadDim = 16;
constexpr int64_t kKeyPadding = 16;  // keys are padded to a multiple of the widest vector

// Tiles of `rows` queries that cover `queries`, the last one short.
int64_t tile_count(int64_t queries, int64_t rows) { return (queries + rows - 1) / rows; }

// The operands of one call, flattened to [B * H, L, 16].
struct Problem {
  const float *q = nullptr, *k = nullptr, *v = nullptr;
  const float *k_t = nullptr, *v_t = nullptr;  // [B * H, 16, padded]: k and v transposed
  const float* bias = nullptr;  // [B, padded]: 0 where a key is attended, -inf where not
  int64_t heads = 0, queries = 0, keys = 0, padded = 0;
  double dropout_p = 0.0;
  uint64_t seed = 0;
  float keep_scale = 1.0f;          // dropout's 1 / (1 - p), as torch.dropout rounds it
  float* out = nullptr;             // forward: [B * H, Lq, 16]
  const float* grad_out = nullptr;  // backward
  float *grad_q = nullptr, *grad_k_parts = nullptr, *grad_v_parts = nullptr;
  int64_t chunks = 1;  // backward: query ranges per head, each with its own key gradients

  int64_t batch_of(int64_t bh) const { return bh / heads; }
};

#ifdef OLV2_ATTENTION_SIMD
#define OLV2_INLINE __attribute__((always_inline)) inline

// Vectors of 8 or 16 floats, of as many 32-bit integers and of as many bytes.
template <int Lanes>
struct VectorsOf;
template <>
struct VectorsOf<8> {
  typedef float Float __attribute__((vector_size(32)));
  typedef int32_t Int __attribute__((vector_size(32)));
  typedef uint8_t Bytes __attribute__((vector_size(8)));
};
template <>
struct VectorsOf<16> {
  typedef float Float __attribute__((vector_size(64)));
  typedef int32_t Int __attribute__((vector_size(64)));
  typedef uint8_t Bytes __attribute__((vector_size(16)));
};

// A tile of `Rows` queries against all keys with vectors of `Lanes` floats.
template <int Lanes, int Rows>
struct Tile {
  using Vec = typename VectorsOf<Lanes>::Float;
  using Int = typename VectorsOf<Lanes>::Int;
  using Bytes = typename VectorsOf<Lanes>::Bytes;
  static constexpr int kPerRow = kHeadDim / Lanes;  // vectors per head-dimension row
  static constexpr int64_t kRows = Rows;

  static OLV2_INLINE Vec load(const float* p) {
    Vec x;
    std::memcpy(&x, p, sizeof x);
    return x;
  }
  static OLV2_INLINE void store(float* p, Vec x) { std::memcpy(p, &x, sizeof x); }
  static OLV2_INLINE Vec splat(float a) { return Vec{} + a; }
  static OLV2_INLINE float lane_sum(Vec x) {
    float s = 0;
    for (int i = 0; i < Lanes; ++i) s += x[i];
    return s;
  }
  static OLV2_INLINE float lane_max(Vec x) {
    float m = x[0];
    for (int i = 1; i < Lanes; ++i) m = x[i] > m ? x[i] : m;
    return m;
  }

  // exp(x) for x <= 0: x = n ln2 + r with |r| <= ln2 / 2 (ln2 in two parts), then Cephes'
  // degree-6 polynomial for e^r; 0 below the smallest normal float's logarithm, NaN for NaN.
  static OLV2_INLINE Vec exp(Vec x) {
    const Vec t = x * 1.44269504088896341f + 0.5f;
    Vec n = __builtin_convertvector(__builtin_convertvector(t, Int), Vec);
    n = n > t ? n - 1.0f : n;  // floor: the conversion truncated towards zero
    Vec r = x - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    Vec p = splat(1.9875691500e-4f);
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    const Int bits = (__builtin_convertvector(n, Int) + 127) << 23;
    Vec scale;
    std::memcpy(&scale, &bits, sizeof scale);
    const Vec e = x < -87.33654f ? splat(0.0f) : p * scale;
    return x == x ? e : x;
  }

  // out[r][j] = bias[j] + rows[r] . cols[:, j] for j < padded; rows [Rows][16], cols [16][padded].
  static OLV2_INLINE void products(const float* rows, const float* cols, const float* bias,
                                   int64_t padded, float* out) {
    for (int64_t j = 0; j < padded; j += Lanes) {
      Vec acc[Rows];
      const Vec start = bias ? load(bias + j) : splat(0.0f);
      for (int r = 0; r < Rows; ++r) acc[r] = start;
      for (int d = 0; d < kHeadDim; ++d) {
        const Vec c = load(cols + d * padded + j);
        for (int r = 0; r < Rows; ++r) acc[r] += rows[r * kHeadDim + d] * c;
      }
      for (int r = 0; r < Rows; ++r) store(out + r * padded + j, acc[r]);
    }
  }

  // Each row of s [Rows][padded] replaced by its softmax (NaN where every key is ignored, as
  // torch.softmax gives).
  static OLV2_INLINE void softmax(float* s, int64_t padded) {
    for (int r = 0; r < Rows; ++r) {
      float* x = s + r * padded;
      Vec m = splat(-std::numeric_limits<float>::infinity());
      for (int64_t j = 0; j < padded; j += Lanes) {
        const Vec a = load(x + j);
        m = a > m ? a : m;
      }
      const float row_max = lane_max(m);
      if (row_max == -std::numeric_limits<float>::infinity()) {
        for (int64_t j = 0; j < padded; ++j) x[j] = std::numeric_limits<float>::quiet_NaN();
        continue;
      }
      Vec sum = splat(0.0f);
      for (int64_t j = 0; j < padded; j += Lanes) {
        const Vec e = exp(load(x + j) - row_max);
        store(x + j, e);
        sum += e;
      }
      const float inverse = 1.0f / lane_sum(sum);
      for (int64_t j = 0; j < padded; j += Lanes) store(x + j, load(x + j) * inverse);
    }
  }

  // out[r] = sum_j w[r][j] x[j] over j < keys; w [Rows][padded], x [keys][16], out [Rows][16].
  static OLV2_INLINE void weighted_sum(const float* w, int64_t padded, const float* x, int64_t keys,
                                       float* out) {
    Vec acc[Rows][kPerRow] = {};
    for (int64_t j = 0; j < keys; ++j) {
      Vec xj[kPerRow];
      for (int c = 0; c < kPerRow; ++c) xj[c] = load(x + j * kHeadDim + c * Lanes);
      for (int r = 0; r < Rows; ++r) {
        const float wj = w[r * padded + j];
        for (int c = 0; c < kPerRow; ++c) acc[r][c] += wj * xj[c];
      }
    }
    for (int r = 0; r < Rows; ++r) {
      for (int c = 0; c < kPerRow; ++c) store(out + r * kHeadDim + c * Lanes, acc[r][c]);
    }
  }

  // acc[j] += sum_r w[r][j] x[r] for j < keys; w [Rows][padded], x [Rows][16], acc [keys][16].
  static OLV2_INLINE void accumulate_outer(const float* w, int64_t padded, const float* x,
                                           int64_t keys, float* acc) {
    Vec xr[Rows][kPerRow];
    for (int r = 0; r < Rows; ++r) {
      for (int c = 0; c < kPerRow; ++c) xr[r][c] = load(x + r * kHeadDim + c * Lanes);
    }
    for (int64_t j = 0; j < keys; ++j) {
      for (int c = 0; c < kPerRow; ++c) {
        Vec a = load(acc + j * kHeadDim + c * Lanes);
        for (int r = 0; r < Rows; ++r) a += w[r * padded + j] * xr[r][c];
        store(acc + j * kHeadDim + c * Lanes, a);
      }
    }
  }

  // g = w * (g - sum_j w g), row by row: softmax's backward.
  static OLV2_INLINE void softmax_backward(const float* w, float* g, int64_t padded) {
    for (int r = 0; r < Rows; ++r) {
      const float* wr = w + r * padded;
      float* gr = g + r * padded;
      Vec dot = splat(0.0f);
      for (int64_t j = 0; j < padded; j += Lanes) dot += load(wr + j) * load(gr + j);
      const float row_dot = lane_sum(dot);
      for (int64_t j = 0; j < padded; j += Lanes) {
        store(gr + j, load(wr + j) * (load(gr + j) - row_dot));
      }
    }
  }

  // Rows [first, first + rows) of x [L, 16] into tile [Rows][16], the rest zero.
  static OLV2_INLINE void gather_rows(const float* x, int64_t first, int64_t rows, float* tile) {
    std::memset(tile, 0, sizeof(float) * Rows * kHeadDim);
    std::memcpy(tile, x + first * kHeadDim, sizeof(float) * rows * kHeadDim);
  }

  // Dropout of the tile's weights w [Rows][padded]: the counter mask of query rows
  // [first, first + rows) of head bh, each kept weight scaled, into `dropped` (may be w), and the
  // same for g when given (the gradient of the dropped weights).
  static OLV2_INLINE void drop(const Problem& p, int64_t bh, int64_t first, int64_t rows,
                               const float* w, float* dropped, float* g, uint8_t* kept) {
    for (int64_t r = 0; r < rows; ++r) {
      const auto element = static_cast<uint64_t>((bh * p.queries + first + r) * p.keys);
      counter_dropout_kept(kept, p.keys, element, p.dropout_p, p.seed);
      const float* wr = w + r * p.padded;
      float* dr = dropped + r * p.padded;
      float* gr = g ? g + r * p.padded : nullptr;
      int64_t j = 0;
      for (; j + Lanes <= p.keys; j += Lanes) {
        Bytes bytes;
        std::memcpy(&bytes, kept + j, sizeof bytes);
        const Vec m = __builtin_convertvector(bytes, Int) != 0 ? splat(p.keep_scale) : splat(0.0f);
        store(dr + j, load(wr + j) * m);
        if (gr) store(gr + j, load(gr + j) * m);
      }
      for (; j < p.keys; ++j) {
        const float m = kept[j] ? p.keep_scale : 0.0f;
        dr[j] = wr[j] * m;
        if (gr) gr[j] *= m;
      }
    }
    // The tile's rows past the last query take no part.
    std::fill(dropped + rows * p.padded, dropped + Rows * p.padded, 0.0f);
  }

  // Forward of items [begin, end): item = head * tiles + tile.
  static OLV2_INLINE void forward(const Problem& p, int64_t begin, int64_t end) {
    std::vector<float> weights(static_cast<size_t>(Rows * p.padded));
    std::vector<uint8_t> kept(static_cast<size_t>(p.keys));
    float q_tile[Rows * kHeadDim], out_tile[Rows * kHeadDim];
    const int64_t count = tile_count(p.queries, Rows);
    for (int64_t item = begin; item < end; ++item) {
      const int64_t bh = item / count, first = item % count * Rows;
      const int64_t rows = std::min<int64_t>(Rows, p.queries - first);
      gather_rows(p.q + bh * p.queries * kHeadDim, first, rows, q_tile);
      products(q_tile, p.k_t + bh * kHeadDim * p.padded, p.bias + p.batch_of(bh) * p.padded,
               p.padded, weights.data());
      softmax(weights.data(), p.padded);
      if (p.dropout_p > 0.0) {
        drop(p, bh, first, rows, weights.data(), weights.data(), nullptr, kept.data());
      }
      weighted_sum(weights.data(), p.padded, p.v + bh * p.keys * kHeadDim, p.keys, out_tile);
      std::memcpy(p.out + (bh * p.queries + first) * kHeadDim, out_tile,
                  sizeof(float) * rows * kHeadDim);
    }
  }

  // Backward of items [begin, end): item = head * chunks + chunk, a chunk being a range of tiles
  // whose key gradients go to the item's own part.
  static OLV2_INLINE void backward(const Problem& p, int64_t begin, int64_t end) {
    const size_t tile_size = static_cast<size_t>(Rows * p.padded);
    std::vector<float> weights(tile_size), grad(tile_size), dropped(tile_size);
    std::vector<uint8_t> kept(static_cast<size_t>(p.keys));
    float q_tile[Rows * kHeadDim], grad_out_tile[Rows * kHeadDim], grad_q_tile[Rows * kHeadDim];
    const int64_t count = tile_count(p.queries, Rows);
    for (int64_t item = begin; item < end; ++item) {
      const int64_t bh = item / p.chunks, chunk = item % p.chunks;
      float* grad_k = p.grad_k_parts + item * p.keys * kHeadDim;
      float* grad_v = p.grad_v_parts + item * p.keys * kHeadDim;
      const float* k_t = p.k_t + bh * kHeadDim * p.padded;
      const float* v_t = p.v_t + bh * kHeadDim * p.padded;
      const float* k = p.k + bh * p.keys * kHeadDim;
      for (int64_t tile = chunk * count / p.chunks; tile < (chunk + 1) * count / p.chunks; ++tile) {
        const int64_t first = tile * Rows, rows = std::min<int64_t>(Rows, p.queries - first);
        gather_rows(p.q + bh * p.queries * kHeadDim, first, rows, q_tile);
        gather_rows(p.grad_out + bh * p.queries * kHeadDim, first, rows, grad_out_tile);
        products(q_tile, k_t, p.bias + p.batch_of(bh) * p.padded, p.padded, weights.data());
        softmax(weights.data(), p.padded);
        // grad: the gradient of the dropped weights, then of the weights, then of the scores.
        products(grad_out_tile, v_t, nullptr, p.padded, grad.data());
        const float* used = weights.data();
        if (p.dropout_p > 0.0) {
          drop(p, bh, first, rows, weights.data(), dropped.data(), grad.data(), kept.data());
          used = dropped.data();
        }
        accumulate_outer(used, p.padded, grad_out_tile, p.keys, grad_v);
        softmax_backward(weights.data(), grad.data(), p.padded);
        weighted_sum(grad.data(), p.padded, k, p.keys, grad_q_tile);
        std::memcpy(p.grad_q + (bh * p.queries + first) * kHeadDim, grad_q_tile,
                    sizeof(float) * rows * kHeadDim);
        accumulate_outer(grad.data(), p.padded, q_tile, p.keys, grad_k);
      }
    }
  }
};

__attribute__((target("avx512f,avx2,fma"))) void forward_avx512(const Problem& p, int64_t b,
                                                                int64_t e) {
  Tile<16, 8>::forward(p, b, e);
}
__attribute__((target("avx512f,avx2,fma"))) void backward_avx512(const Problem& p, int64_t b,
                                                                 int64_t e) {
  Tile<16, 8>::backward(p, b, e);
}
__attribute__((target("avx2,fma"))) void forward_avx2(const Problem& p, int64_t b, int64_t e) {
  Tile<8, 4>::forward(p, b, e);
}
__attribute__((target("avx2,fma"))) void backward_avx2(const Problem& p, int64_t b, int64_t e) {
  Tile<8, 4>::backward(p, b, e);
}
#undef OLV2_INLINE
#endif

struct Kernels {
  int64_t rows;  // queries per tile
  void (*forward)(const Problem&, int64_t, int64_t);
  void (*backward)(const Problem&, int64_t, int64_t);
};

Kernels kernels_for(AttentionSimd simd) {
#ifdef OLV2_ATTENTION_SIMD
  if (simd == AttentionSimd::kAvx512) return {Tile<16, 8>::kRows, forward_avx512, backward_avx512};
  if (simd == AttentionSimd::kAvx2) return {Tile<8, 4>::kRows, forward_avx2, backward_avx2};
#endif
  (void)simd;
  throw runtime_error("fused_attention: no kernel for this CPU");
}

// k or v [BH, L, 16] as [BH, 16, padded], zero beyond L.
at::Tensor transposed_padded(const at::Tensor& x, int64_t padded) {
  at::Tensor t = at::zeros({x.size(0), kHeadDim, padded}, x.options());
  t.narrow(2, 0, x.size(1)).copy_(x.transpose(1, 2));
  return t;
}

Problem problem_of(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                   const at::Tensor& k_t, const at::Tensor& v_t, const at::Tensor& bias,
                   int64_t heads, double dropout_p, uint64_t seed) {
  Problem p;
  p.q = q.data_ptr<float>();
  p.k = k.data_ptr<float>();
  p.v = v.data_ptr<float>();
  p.k_t = k_t.data_ptr<float>();
  p.v_t = v_t.defined() ? v_t.data_ptr<float>() : nullptr;
  p.bias = bias.data_ptr<float>();
  p.heads = heads;
  p.queries = q.size(1);
  p.keys = k.size(1);
  p.padded = bias.size(1);
  p.dropout_p = dropout_p;
  p.seed = seed;
  p.keep_scale = 1.0f / static_cast<float>(1.0 - dropout_p);
  return p;
}

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

class FusedAttentionFunction : public torch::autograd::Function<FusedAttentionFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& q, const at::Tensor& k,
                            const at::Tensor& v, const at::Tensor& bias, int64_t heads,
                            double dropout_p, int64_t seed, int64_t simd) {
    ctx->save_for_backward({q, k, v, bias});
    ctx->saved_data["heads"] = heads;
    ctx->saved_data["dropout_p"] = dropout_p;
    ctx->saved_data["seed"] = seed;
    ctx->saved_data["simd"] = simd;
    const Kernels kernels = kernels_for(static_cast<AttentionSimd>(simd));
    const at::Tensor k_t = transposed_padded(k, bias.size(1));
    Problem p = problem_of(q, k, v, k_t, {}, bias, heads, dropout_p, static_cast<uint64_t>(seed));
    at::Tensor out = at::empty_like(q);
    p.out = out.data_ptr<float>();
    const int64_t tiles = tile_count(p.queries, kernels.rows);
    at::parallel_for(0, q.size(0) * tiles, 1,
                     [&](int64_t begin, int64_t end) { kernels.forward(p, begin, end); });
    return out;
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &q = saved[0], &k = saved[1], &v = saved[2], &bias = saved[3];
    const Kernels kernels =
        kernels_for(static_cast<AttentionSimd>(ctx->saved_data["simd"].toInt()));
    const int64_t padded = bias.size(1), heads_total = q.size(0);
    const at::Tensor k_t = transposed_padded(k, padded), v_t = transposed_padded(v, padded);
    Problem p = problem_of(q, k, v, k_t, v_t, bias, ctx->saved_data["heads"].toInt(),
                           ctx->saved_data["dropout_p"].toDouble(),
                           static_cast<uint64_t>(ctx->saved_data["seed"].toInt()));
    const at::Tensor grad_out = grad_outputs[0].to(at::kFloat).contiguous();
    at::Tensor grad_q = at::empty_like(q);
    // Enough query ranges per head to give every thread work; each range has its own key
    // gradients, summed afterwards.
    const int64_t tiles = tile_count(p.queries, kernels.rows);
    p.chunks = std::clamp<int64_t>(
        (at::get_num_threads() + heads_total - 1) / std::max<int64_t>(heads_total, 1), 1,
        std::max<int64_t>(tiles, 1));
    at::Tensor grad_k_parts = at::zeros({heads_total, p.chunks, p.keys, kHeadDim}, q.options());
    at::Tensor grad_v_parts = at::zeros_like(grad_k_parts);
    p.grad_out = grad_out.data_ptr<float>();
    p.grad_q = grad_q.data_ptr<float>();
    p.grad_k_parts = grad_k_parts.data_ptr<float>();
    p.grad_v_parts = grad_v_parts.data_ptr<float>();
    at::parallel_for(0, heads_total * p.chunks, 1,
                     [&](int64_t begin, int64_t end) { kernels.backward(p, begin, end); });
    return {grad_q, grad_k_parts.sum(1), grad_v_parts.sum(1), {}, {}, {}, {}, {}};
  }
};

}  // namespace

AttentionSimd best_attention_simd() {
#ifdef OLV2_ATTENTION_SIMD
  static const AttentionSimd best = [] {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
      return AttentionSimd::kNone;
    }
    return __builtin_cpu_supports("avx512f") ? AttentionSimd::kAvx512 : AttentionSimd::kAvx2;
  }();
  return best;
#else
  return AttentionSimd::kNone;
#endif
}

bool fused_attention_supports(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
  for (const at::Tensor* x : {&q, &k, &v}) {
    if (!x->device().is_cpu() || x->scalar_type() != at::kFloat || x->dim() != 4 ||
        x->size(3) != kHeadDim) {
      return false;
    }
  }
  return best_attention_simd() != AttentionSimd::kNone;
}

at::Tensor fused_attention(const at::Tensor& scaled_q, const at::Tensor& k, const at::Tensor& v,
                           const at::Tensor& key_padding_mask, double dropout_p, uint64_t seed,
                           AttentionSimd simd) {
  if (scaled_q.dim() != 4 || k.dim() != 4 || k.sizes() != v.sizes() ||
      scaled_q.sizes().slice(0, 2) != k.sizes().slice(0, 2) || scaled_q.size(3) != kHeadDim ||
      k.size(3) != kHeadDim) {
    throw runtime_error("fused_attention: expected q [B, H, Lq, 16], k and v [B, H, Lk, 16]");
  }
  for (const at::Tensor* x : {&scaled_q, &k, &v}) {
    if (x->scalar_type() != at::kFloat || !x->device().is_cpu()) {
      throw runtime_error("fused_attention: expected float32 CPU tensors");
    }
  }
  if (!(dropout_p >= 0.0 && dropout_p < 1.0)) {
    throw runtime_error("fused_attention: expected 0 <= dropout_p < 1, got " +
                        std::to_string(dropout_p));
  }
  if (simd == AttentionSimd::kNone ||
      (simd == AttentionSimd::kAvx512 && best_attention_simd() != AttentionSimd::kAvx512) ||
      best_attention_simd() == AttentionSimd::kNone) {
    throw runtime_error("fused_attention: this CPU or build has no such kernel");
  }
  const int64_t batch = scaled_q.size(0), heads = scaled_q.size(1), queries = scaled_q.size(2),
                keys = k.size(2);
  const int64_t padded = (keys + kKeyPadding - 1) / kKeyPadding * kKeyPadding;
  at::Tensor bias = at::full({batch, padded}, -std::numeric_limits<float>::infinity(),
                             scaled_q.options().requires_grad(false));
  bias.narrow(1, 0, keys).zero_();
  if (key_padding_mask.defined()) {
    if (key_padding_mask.sizes() != at::IntArrayRef{batch, keys}) {
      throw runtime_error("fused_attention: key_padding_mask must be [B, Lk]");
    }
    bias.narrow(1, 0, keys)
        .masked_fill_(key_padding_mask.to(at::kBool), -std::numeric_limits<float>::infinity());
  }
  const auto flat = [&](const at::Tensor& x, int64_t length) {
    return x.reshape({batch * heads, length, kHeadDim}).contiguous();
  };
  return FusedAttentionFunction::apply(flat(scaled_q, queries), flat(k, keys), flat(v, keys), bias,
                                       heads, dropout_p, static_cast<int64_t>(seed),
                                       static_cast<int64_t>(simd))
      .view({batch, heads, queries, kHeadDim});
}

}  // namespace olv2
