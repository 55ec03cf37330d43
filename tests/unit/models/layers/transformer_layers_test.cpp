#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "olv2/models/layers/multihead_attention.h"
#include "olv2/models/layers/packed_multihead_attention.h"
#include "olv2/models/layers/sine_positional_encoding.h"
#include "olv2/util/math_constants.h"

namespace olv2 {
namespace {

// LibTorch's own nn::MultiheadAttention has the original parameter layout; with the same weights
// the project's attention (behind dot_product_attention) must give the same output.
TEST(PackedMultiheadAttention, EqualsLibTorchMultiheadAttention) {
  torch::manual_seed(3);
  const int64_t embed = 16, heads = 4, batch = 2, queries = 5, keys = 7;
  PackedMultiheadAttention ours(embed, heads, 0.0);
  torch::nn::MultiheadAttention reference(torch::nn::MultiheadAttentionOptions(embed, heads));
  {
    torch::NoGradGuard no_grad;
    for (auto& p : ours->named_parameters()) p.value().normal_();
    for (auto& p : reference->named_parameters())
      p.value().copy_(ours->named_parameters()[p.key()]);
  }
  const auto q = torch::randn({queries, batch, embed});
  const auto k = torch::randn({keys, batch, embed});
  const auto v = torch::randn({keys, batch, embed});
  auto mask = torch::zeros({batch, keys}, torch::kBool);
  mask[1][6] = true;
  mask[0][0] = true;
  const auto expected = std::get<0>(reference->forward(q, k, v, mask));
  EXPECT_TRUE(torch::allclose(ours->forward(q, k, v, mask), expected, 1e-5, 1e-5));
}

TEST(MultiheadAttention, AddsPositionsToQueryAndKeyButNotValueAndKeepsTheResidual) {
  torch::manual_seed(4);
  MultiheadAttentionOptions options;
  options.embed_dims = 8;
  options.num_heads = 2;
  options.dropout = 0.0;
  MultiheadAttention block(options);
  const auto x = torch::randn({3, 1, 8});
  const auto pos = torch::randn({3, 1, 8});
  const auto out = block->forward(x, x, x, {}, pos, {}, {});
  const auto direct = x + block->attn()->forward(x + pos, x + pos, x, {});
  EXPECT_TRUE(torch::allclose(out, direct, 1e-6, 1e-6));
}

// Spec §7 reference values: lane head (50 x 100 unmasked BEV), token (r=0, c=0).
TEST(SinePositionalEncoding, MatchesSpecReferenceValues) {
  SinePositionalEncodingOptions options;  // the lane head's: 32 features per axis, normalised
  options.normalize = true;
  const auto pos = sine_positional_encoding(torch::zeros({1, 50, 100}, torch::kBool), options);
  ASSERT_EQ(pos.sizes(), (std::vector<int64_t>{1, 64, 50, 100}));
  const auto at = [&](int64_t channel) { return pos[0][channel][0][0].item<double>(); };
  EXPECT_NEAR(at(0), 0.1253332, 1e-6);
  EXPECT_NEAR(at(1), 0.9921147, 1e-6);
  EXPECT_NEAR(at(2), 0.0706071, 1e-6);
  EXPECT_NEAR(at(3), 0.9975042, 1e-6);
  EXPECT_NEAR(at(32), 0.0627905, 1e-6);
  EXPECT_NEAR(at(33), 0.9980267, 1e-6);
}

TEST(SinePositionalEncoding, MaskedRowsDoNotAdvanceTheRowPosition) {
  auto mask = torch::zeros({1, 4, 3}, torch::kBool);
  mask[0][3].fill_(true);  // last row padded: rows 0..2 span the full 2 pi
  SinePositionalEncodingOptions options;
  options.num_feats = 2;
  options.normalize = true;
  const auto pos = sine_positional_encoding(mask, options);
  // Channel 0 = sin(y_hat): y_hat of row 2 is 3 / (3 + 1e-6) * 2 pi; the padded row repeats it.
  const double y2 = 3.0 / (3.0 + 1e-6) * 2 * kPi;
  EXPECT_NEAR(pos[0][0][2][0].item<double>(), std::sin(y2), 1e-5);
  EXPECT_NEAR(pos[0][0][3][0].item<double>(), std::sin(y2), 1e-5);
  // Channel 2 = sin(x_hat) is 0 on the fully padded row (its row count is 0).
  EXPECT_NEAR(pos[0][2][3][1].item<double>(), 0.0, 1e-7);
}

}  // namespace
}  // namespace olv2
