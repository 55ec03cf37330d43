#include "olv2/models/ops/fused_attention.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <vector>

#include "olv2/models/ops/attention.h"
#include "olv2/models/ops/blocked_attention.h"
#include "olv2/models/ops/counter_dropout.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

// The kernels this CPU runs: AVX2 always where AVX-512 runs too.
std::vector<AttentionSimd> runnable_kernels() {
  switch (best_attention_simd()) {
    case AttentionSimd::kAvx512:
      return {AttentionSimd::kAvx2, AttentionSimd::kAvx512};
    case AttentionSimd::kAvx2:
      return {AttentionSimd::kAvx2};
    case AttentionSimd::kNone:
      break;
  }
  return {};
}

const char* name_of(AttentionSimd simd) {
  return simd == AttentionSimd::kAvx512 ? "AVX-512" : "AVX2";
}

// Skips (outside CI) or fails (under CI, whose machines run AVX2) a test of the kernels on a
// CPU or build that has neither.
#define OLV2_REQUIRE_A_FUSED_KERNEL()                                                 \
  if (runnable_kernels().empty()) {                                                   \
    if (test::running_in_ci()) FAIL() << "no fused attention kernel under CI";        \
    GTEST_SKIP() << "this CPU or build runs neither the AVX2 nor the AVX-512 kernel"; \
  }

struct Operands {
  at::Tensor q, k, v, padding;
};

// Float operands with 16 dimensions per head; the queries are not a multiple of any tile and the
// keys not a multiple of any vector. Padding: the last key of entry 0, the first of entry 1.
Operands random_operands(int64_t batch, int64_t heads, int64_t queries, int64_t keys) {
  torch::manual_seed(5);
  const auto options = torch::TensorOptions(torch::kFloat).requires_grad(true);
  Operands o{torch::randn({batch, heads, queries, 16}, options),
             torch::randn({batch, heads, keys, 16}, options),
             torch::randn({batch, heads, keys, 16}, options),
             torch::zeros({batch, keys}, torch::kBool)};
  o.padding[0][keys - 1] = true;
  if (batch > 1) o.padding[1][0] = true;
  return o;
}

// softmax(q k^T) v with the weights materialised in double, times `mask_scale` when defined.
at::Tensor materialised_in_double(const Operands& o, const at::Tensor& mask_scale) {
  at::Tensor scores =
      torch::matmul(o.q.to(torch::kDouble), o.k.to(torch::kDouble).transpose(-1, -2));
  scores = scores.masked_fill(o.padding.view({o.padding.size(0), 1, 1, -1}),
                              -std::numeric_limits<double>::infinity());
  at::Tensor weights = torch::softmax(scores, -1);
  if (mask_scale.defined()) weights = weights * mask_scale;
  return torch::matmul(weights, o.v.to(torch::kDouble));
}

std::vector<at::Tensor> fused_test_gradients(const at::Tensor& out, const Operands& o,
                                             const at::Tensor& upstream) {
  return torch::autograd::grad({(out * upstream.to(out.scalar_type())).sum()}, {o.q, o.k, o.v});
}

void expect_near_reference(const at::Tensor& actual, const at::Tensor& expected, double tolerance,
                           const std::string& what) {
  const double error =
      (actual.to(torch::kDouble) - expected.to(torch::kDouble)).abs().max().item<double>();
  const double scale = expected.abs().max().item<double>();
  EXPECT_LE(error, tolerance * std::max(scale, 1.0)) << what << ": largest error " << error;
}

// Float32 sums of 16 products and of a few dozen weighted rows against double: about 1e-6 of
// the largest values.
constexpr double kTolerance = 1e-5;

// out and its gradients for `upstream` against the expected ones.
void expect_output_and_gradients(const at::Tensor& out, const at::Tensor& expected,
                                 const std::vector<at::Tensor>& expected_grads, const Operands& o,
                                 const at::Tensor& upstream, const std::string& what) {
  ASSERT_EQ(out.sizes(), expected.sizes());
  expect_near_reference(out, expected, kTolerance, what + " output");
  const auto grads = fused_test_gradients(out, o, upstream);
  for (size_t i = 0; i < grads.size(); ++i) {
    expect_near_reference(grads[i], expected_grads[i], kTolerance,
                          what + " gradient " + std::to_string(i));
  }
}

TEST(FusedAttention, EqualsTheMaterialisedSoftmaxInValueAndGradient) {
  OLV2_REQUIRE_A_FUSED_KERNEL();
  const Operands o = random_operands(2, 3, 37, 23);
  const at::Tensor upstream = torch::randn({2, 3, 37, 16});
  const at::Tensor expected = materialised_in_double(o, {});
  const auto expected_grads = fused_test_gradients(expected, o, upstream);
  for (const AttentionSimd simd : runnable_kernels()) {
    expect_output_and_gradients(fused_attention(o.q, o.k, o.v, o.padding, 0.0, 0, simd), expected,
                                expected_grads, o, upstream, name_of(simd));
  }
}

TEST(FusedAttention, DropsTheSameWeightsAsTheBlockedKernelForASeed) {
  OLV2_REQUIRE_A_FUSED_KERNEL();
  const Operands o = random_operands(2, 2, 21, 40);
  const double p = 0.3;
  const uint64_t seed = 99;
  at::Tensor mask_scale = torch::ones({4, 21, 40}, torch::kDouble);
  counter_dropout_({mask_scale}, {21, 0}, p, seed);
  mask_scale = mask_scale.view({2, 2, 21, 40});
  ASSERT_GT((mask_scale == 0).sum().item<int64_t>(), 0);
  const at::Tensor upstream = torch::randn({2, 2, 21, 16});
  const at::Tensor expected = materialised_in_double(o, mask_scale);
  const auto expected_grads = fused_test_gradients(expected, o, upstream);
  const at::Tensor blocked = blocked_attention(o.q, o.k, o.v, o.padding, p, seed);
  for (const AttentionSimd simd : runnable_kernels()) {
    const at::Tensor out = fused_attention(o.q, o.k, o.v, o.padding, p, seed, simd);
    expect_near_reference(out, blocked, kTolerance,
                          std::string(name_of(simd)) + " against blocked");
    expect_output_and_gradients(out, expected, expected_grads, o, upstream, name_of(simd));
  }
}

TEST(FusedAttention, KeyGradientsOfQueryRangesOnSeveralThreadsAddUp) {
  OLV2_REQUIRE_A_FUSED_KERNEL();
  // One head and two threads: backward splits the queries in two ranges with their own parts.
  const Operands o = random_operands(1, 1, 45, 30);
  const at::Tensor upstream = torch::randn({1, 1, 45, 16});
  const auto expected_grads = fused_test_gradients(materialised_in_double(o, {}), o, upstream);
  const int threads = at::get_num_threads();
  at::set_num_threads(2);
  const auto grads =
      fused_test_gradients(fused_attention(o.q, o.k, o.v, o.padding, 0.0, 0), o, upstream);
  at::set_num_threads(threads);
  for (size_t i = 0; i < grads.size(); ++i) {
    expect_near_reference(grads[i], expected_grads[i], kTolerance, "gradient " + std::to_string(i));
  }
}

TEST(FusedAttention, AnEntryWhoseKeysAreAllIgnoredGivesNaNAsTorchSoftmaxDoes) {
  OLV2_REQUIRE_A_FUSED_KERNEL();
  Operands o = random_operands(2, 1, 9, 5);
  o.padding[1].fill_(true);
  const at::Tensor out = fused_attention(o.q, o.k, o.v, o.padding, 0.0, 0);
  EXPECT_TRUE(torch::isnan(out[1]).all().item<bool>());
  EXPECT_TRUE(torch::isfinite(out[0]).all().item<bool>());
  expect_near_reference(out[0], materialised_in_double(o, {})[0], kTolerance, "entry 0");
}

TEST(FusedAttention, WeightsAcrossTheExponentsRangeMatchDoublePrecision) {
  OLV2_REQUIRE_A_FUSED_KERNEL();
  // One query whose scores against 64 keys spread over [-100, 0]: the weights (v = identity
  // rows) exercise the exponential from e^0 down to below the smallest normal float.
  const at::Tensor scores = -torch::linspace(0.0, 100.0, 64);
  const at::Tensor q = torch::zeros({1, 1, 1, 16});
  q[0][0][0][0] = 1.0;
  at::Tensor k = torch::zeros({1, 1, 64, 16});
  k.select(3, 0).copy_(scores.view({1, 1, 64}));
  at::Tensor v = torch::zeros({1, 1, 64, 16});
  v.select(3, 0).copy_(torch::linspace(1.0, 2.0, 64).view({1, 1, 64}));
  const at::Tensor expected_weights = torch::softmax(scores.to(torch::kDouble), 0);
  const double expected =
      (expected_weights * torch::linspace(1.0, 2.0, 64).to(torch::kDouble)).sum().item<double>();
  for (const AttentionSimd simd : runnable_kernels()) {
    const double out = fused_attention(q, k, v, {}, 0.0, 0, simd)[0][0][0][0].item<double>();
    EXPECT_NEAR(out, expected, 4e-7 * expected) << name_of(simd);
  }
}

TEST(FusedAttention, DotProductAttentionUsesItForFloatHeadsOf16) {
  OLV2_REQUIRE_A_FUSED_KERNEL();
  const Operands o = random_operands(2, 2, 13, 11);
  at::Tensor scaled_q;
  {
    torch::NoGradGuard no_grad;
    scaled_q = o.q / 4.0;
  }
  EXPECT_TRUE(fused_attention_supports(scaled_q, o.k, o.v));
  EXPECT_FALSE(fused_attention_supports(scaled_q.to(torch::kDouble), o.k, o.v));
  EXPECT_FALSE(
      fused_attention_supports(scaled_q.narrow(3, 0, 8), o.k.narrow(3, 0, 8), o.v.narrow(3, 0, 8)));
  // dot_product_attention scales q by 1 / sqrt(16) and draws the dropout seed from the generator.
  torch::manual_seed(3);
  const at::Tensor out = dot_product_attention(o.q, o.k, o.v, o.padding, 0.2, true);
  torch::manual_seed(3);
  const at::Tensor fused = fused_attention(scaled_q, o.k, o.v, o.padding, 0.2, draw_dropout_seed());
  EXPECT_TRUE(torch::equal(out, fused));
}

TEST(FusedAttention, RejectsWhatItCannotRun) {
  const Operands o = random_operands(1, 1, 4, 4);
  EXPECT_THROW(
      fused_attention(o.q.narrow(3, 0, 8), o.k.narrow(3, 0, 8), o.v.narrow(3, 0, 8), {}, 0.0, 0),
      std::exception);
  EXPECT_THROW(fused_attention(o.q, o.k, o.v, {}, 1.0, 0), std::exception);
  EXPECT_THROW(fused_attention(o.q, o.k, o.v, {}, 0.0, 0, AttentionSimd::kNone), std::exception);
}

}  // namespace
}  // namespace olv2
