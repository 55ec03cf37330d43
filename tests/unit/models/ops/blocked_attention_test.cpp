#include "olv2/models/ops/blocked_attention.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>

#include "olv2/models/ops/attention.h"
#include "olv2/models/ops/counter_dropout.h"
#include "olv2/util/autocast_guard.h"

namespace olv2 {
namespace {

// softmax(q k^T) with the weights materialised, times `mask_scale` (dropout's 0 or 1 / (1 - p);
// undefined = none), times v. q already scaled.
at::Tensor materialised(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                        const at::Tensor& padding, const at::Tensor& mask_scale) {
  at::Tensor scores = torch::matmul(q, k.transpose(-1, -2));
  if (padding.defined()) {
    scores = scores.masked_fill(padding.view({padding.size(0), 1, 1, -1}),
                                -std::numeric_limits<double>::infinity());
  }
  at::Tensor weights = torch::softmax(scores, -1);
  if (mask_scale.defined()) weights = weights * mask_scale;
  return torch::matmul(weights, v);
}

struct AttentionInputs {
  at::Tensor q, k, v, padding;
};

AttentionInputs random_inputs(int64_t queries, int64_t keys, torch::Dtype dtype) {
  torch::manual_seed(21);
  const auto options = torch::TensorOptions(dtype).requires_grad(true);
  AttentionInputs in{torch::randn({2, 3, queries, 8}, options),
                     torch::randn({2, 3, keys, 8}, options), torch::randn({2, 3, keys, 8}, options),
                     torch::zeros({2, keys}, torch::kBool)};
  in.padding[0][keys - 1] = true;
  in.padding[1][0] = true;
  return in;
}

std::vector<at::Tensor> gradients(const at::Tensor& out, const AttentionInputs& in,
                                  const at::Tensor& weights) {
  return torch::autograd::grad({(out * weights).sum()}, {in.q, in.k, in.v});
}

// Float32 products summed in another order: a few ulps of the largest values.
constexpr double kFloatTolerance = 1e-5;

TEST(BlockedAttention, EqualsTheMaterialisedKernelBlockByBlockInValueAndGradient) {
  const AttentionInputs in = random_inputs(37, 23, torch::kFloat);
  const at::Tensor upstream = torch::randn({2, 3, 37, 8});
  const at::Tensor expected = materialised(in.q, in.k, in.v, in.padding, {});
  const auto expected_grads = gradients(expected, in, upstream);
  // 5 rows per block: 8 blocks, the last one short.
  const at::Tensor out = blocked_attention(in.q, in.k, in.v, in.padding, 0.0, 0, 5 * 6 * 23);
  EXPECT_TRUE(torch::allclose(out, expected, kFloatTolerance, kFloatTolerance));
  const auto grads = gradients(out, in, upstream);
  for (size_t i = 0; i < grads.size(); ++i) {
    EXPECT_TRUE(torch::allclose(grads[i], expected_grads[i], kFloatTolerance, kFloatTolerance))
        << "gradient " << i;
  }
}

TEST(BlockedAttention, DropsTheWeightsWithTheSeedsMaskInForwardAndBackward) {
  const AttentionInputs in = random_inputs(19, 11, torch::kDouble);
  const double p = 0.3;
  const uint64_t seed = 1234;
  at::Tensor mask_scale = torch::ones({6, 19, 11}, torch::kDouble);
  counter_dropout_({mask_scale}, {19, 0}, p, seed);
  mask_scale = mask_scale.view({2, 3, 19, 11});
  ASSERT_GT((mask_scale == 0).sum().item<int64_t>(), 0);
  const at::Tensor upstream = torch::randn({2, 3, 19, 8}, torch::kDouble);
  const at::Tensor expected = materialised(in.q, in.k, in.v, in.padding, mask_scale);
  const at::Tensor out = blocked_attention(in.q, in.k, in.v, in.padding, p, seed, 4 * 6 * 11);
  EXPECT_TRUE(torch::allclose(out, expected, 1e-12, 1e-12));
  const auto grads = gradients(out, in, upstream);
  const auto expected_grads = gradients(expected, in, upstream);
  for (size_t i = 0; i < grads.size(); ++i) {
    EXPECT_TRUE(torch::allclose(grads[i], expected_grads[i], 1e-12, 1e-12)) << "gradient " << i;
  }
}

TEST(BlockedAttention, DotProductAttentionRunsInAutocastsDtype) {
  const AttentionInputs in = random_inputs(9, 7, torch::kFloat);
  at::Tensor out;
  {
    const AutocastGuard bf16(c10::kCPU, AutocastState{true, c10::ScalarType::BFloat16});
    out = dot_product_attention(in.q, in.k, in.v, in.padding, 0.1, true);
  }
  EXPECT_EQ(out.scalar_type(), c10::ScalarType::BFloat16);
  out.sum().backward();
  EXPECT_EQ(in.q.grad().scalar_type(), c10::ScalarType::Float);
  EXPECT_TRUE(torch::isfinite(in.k.grad()).all().item<bool>());
}

TEST(BlockedAttention, DotProductAttentionDropsOnlyWhenTraining) {
  const AttentionInputs in = random_inputs(40, 30, torch::kFloat);
  const at::Tensor scaled_q = in.q / std::sqrt(8.0);
  const at::Tensor expected = materialised(scaled_q, in.k, in.v, in.padding, {});
  EXPECT_TRUE(torch::allclose(dot_product_attention(in.q, in.k, in.v, in.padding, 0.5, false),
                              expected, kFloatTolerance, kFloatTolerance));
  EXPECT_FALSE(torch::allclose(dot_product_attention(in.q, in.k, in.v, in.padding, 0.5, true),
                               expected, kFloatTolerance, kFloatTolerance));
}

}  // namespace
}  // namespace olv2
