// LaneSegNet's LaneAttention: head k samples around reference point k, and its offsets start in
// rings of 8 directions.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "olv2/config/config_loader.h"
#include "olv2/models/attention_registry.h"
#include "olv2/models/layers/multi_scale_deformable_attention.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

MultiScaleDeformableAttentionOptions lane_attention(int64_t points) {
  return read_attention<MultiScaleDeformableAttentionOptions>(
      parse_yaml("{type: LaneAttention, embed_dims: 16, num_heads: 8, num_levels: 1, "
                 "num_points: " +
                     std::to_string(points) + ", dropout: 0.0}",
                 "c.yaml"),
      "LaneAttention");
}

// [head][level][direction][ring][xy]: direction k at 45k degrees with its larger coordinate 1,
// times ring + 1; the same for every head.
TEST(LaneAttention, OffsetsStartInRingsOfEightDirections) {
  MultiScaleDeformableAttention attention(lane_attention(16));
  const at::Tensor bias =
      attention->named_parameters()["sampling_offsets.bias"].view({8, 1, 8, 2, 2});
  for (int64_t head : {0, 5}) {
    EXPECT_TRUE(bias[head][0][0][0].allclose(torch::tensor({1.0f, 0.0f})));
    EXPECT_TRUE(bias[head][0][1][1].allclose(torch::tensor({2.0f, 2.0f})));
    EXPECT_TRUE(bias[head][0][6][0].allclose(torch::tensor({0.0f, -1.0f}), 1e-6, 1e-6));
  }
  EXPECT_TRUE(attention->named_parameters()["attention_weights.weight"].eq(0).all().item<bool>());
}

// With zero offsets and uniform weights, head k's channels read the value at reference point k.
TEST(LaneAttention, EachHeadSamplesAroundItsOwnReferencePoint) {
  MultiScaleDeformableAttention attention(lane_attention(8));
  {
    torch::NoGradGuard no_grad;
    for (at::Tensor& parameter : attention->parameters()) parameter.zero_();
    attention->named_parameters()["value_proj.weight"].copy_(torch::eye(16));
    attention->named_parameters()["output_proj.weight"].copy_(torch::eye(16));
  }
  const int64_t h = 4, w = 8;
  // Every channel of a cell holds its column index: the sampled value is x * w - 0.5.
  const at::Tensor value =
      torch::arange(w, torch::kFloat).repeat({h}).view({h * w, 1, 1}).expand({h * w, 1, 16});
  const at::Tensor query = torch::zeros({1, 1, 16});
  at::Tensor reference = torch::zeros({1, 1, 1, 8, 2});
  for (int64_t k = 0; k < 8; ++k) {
    reference[0][0][0][k][0] = (static_cast<float>(k % 4) + 2.5f) / static_cast<float>(w);
    reference[0][0][0][k][1] = 0.5f;
  }
  const at::Tensor out =
      attention->forward(query, value, {}, {}, {}, reference, SpatialShapes{{h, w}});
  for (int64_t k = 0; k < 8; ++k) {
    EXPECT_NEAR(out[0][0][2 * k].item<float>(), static_cast<float>(k % 4) + 2.0f, 1e-5)
        << "head " << k;
  }
  EXPECT_THROW(attention->forward(query, value, {}, {}, {}, torch::zeros({1, 1, 1, 2}),
                                  SpatialShapes{{h, w}}),
               Error);
}

TEST(LaneAttention, PointsMustFillTheRings) {
  try {
    lane_attention(12);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("not a multiple of 8"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace olv2
