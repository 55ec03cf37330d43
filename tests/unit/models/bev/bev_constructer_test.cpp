#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>
#include <vector>

#include "olv2/models/bev/bevformer_constructer.h"
#include "olv2/models/bev/spatial_cross_attention.h"
#include "olv2/models/layers/multi_scale_deformable_attention.h"
#include "olv2/util/autocast_guard.h"

namespace olv2 {
namespace {

constexpr int64_t kBevDims = 16;
constexpr int64_t kBevCams = 2;
const std::pair<int64_t, int64_t> kBevImageHw{32, 40};
const SpatialShapes kBevLevels{{8, 10}, {4, 5}};

BevFormerConstructerOptions bev_small_options() {
  BevFormerConstructerOptions o;
  o.embed_dims = kBevDims;
  o.num_feature_levels = 2;
  o.num_cams = kBevCams;
  o.bev_h = 4;
  o.bev_w = 6;
  o.encoder.num_layers = 2;
  o.encoder.num_points_in_pillar = 2;
  TemporalSelfAttentionOptions& self_attention = o.encoder.layer.self_attention;
  self_attention.embed_dims = kBevDims;
  self_attention.num_heads = 2;
  self_attention.num_levels = 1;
  self_attention.num_points = 2;
  self_attention.num_bev_queue = 2;
  self_attention.dropout = 0.0;
  SpatialCrossAttentionOptions& cross_attention = o.encoder.layer.cross_attention;
  cross_attention.embed_dims = cross_attention.deformable_attention.embed_dims = kBevDims;
  cross_attention.num_cams = kBevCams;
  cross_attention.dropout = 0.0;
  cross_attention.deformable_attention.num_heads = 2;
  cross_attention.deformable_attention.num_levels = 2;
  cross_attention.deformable_attention.num_points = 4;
  o.encoder.layer.ffn = {kBevDims, 32, 2, 0.0};
  o.positional_encoding = {kBevDims / 2, 4, 6};
  return o;
}

// A front and a rear pinhole camera (f = 20 px, principal point at the centre of a 40 x 32
// image) at the ego origin, as ego -> pixel matrices [1, 2, 4, 4].
at::Tensor bev_front_rear_rig() {
  const auto intrinsics = torch::tensor({20.0, 0.0, 20.0, 0.0, 0.0, 20.0, 16.0, 0.0, 0.0, 0.0, 1.0,
                                         0.0, 0.0, 0.0, 0.0, 1.0})
                              .view({4, 4});
  // Camera axes (right, down, forward) in ego coordinates (x forward, y left, z up).
  const auto front = torch::tensor({0.0, -1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0,
                                    0.0, 0.0, 0.0, 1.0})
                         .view({4, 4});
  const auto rear = torch::tensor({0.0, 1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, -1.0, 0.0, 0.0, 0.0,
                                   0.0, 0.0, 0.0, 1.0})
                        .view({4, 4});
  return torch::stack({intrinsics.matmul(front), intrinsics.matmul(rear)}).unsqueeze(0);
}

std::vector<at::Tensor> bev_random_features(int64_t batch) {
  std::vector<at::Tensor> feats;
  for (const auto& [h, w] : kBevLevels)
    feats.push_back(torch::randn({batch, kBevCams, kBevDims, h, w}));
  return feats;
}

// Moves every parameter off its structured init (zero weights, unit norms) so that no path is
// inert, as the fixtures' perturbation does.
void bev_perturb(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  for (auto& parameter : module.parameters()) parameter.add_(0.1 * torch::randn_like(parameter));
}

// Spec §8.4: the full baseline_large constructor has 89 state-dict entries, 7,667,648 values.
TEST(BevFormerConstructer, DefaultsAreTheFullBaselineLargeConfig) {
  BevFormerConstructer bev{BevFormerConstructerOptions{}};
  const auto parameters = bev->named_parameters();
  int64_t values = 0;
  for (const auto& item : parameters) values += item.value().numel();
  EXPECT_EQ(parameters.size(), 89U);
  EXPECT_EQ(values, 7667648);
  EXPECT_EQ(parameters["encoder.layers.2.attentions.0.sampling_offsets.weight"].sizes(),
            (std::vector<int64_t>{128, 512}));
  EXPECT_EQ(parameters["encoder.layers.2.attentions.1.deformable_attention.sampling_offsets.weight"]
                .sizes(),
            (std::vector<int64_t>{512, 256}));
  EXPECT_EQ(parameters["positional_encoding.col_embed.weight"].sizes(),
            (std::vector<int64_t>{200, 128}));
}

// The original's init_weights: deformable offsets start on the per-head directions with zero
// weights, attention weights at zero, projections' biases at zero, can_bus_mlp biases at
// PyTorch's default, everything else of two or more dimensions Xavier-uniform.
TEST(BevFormerConstructer, InitialisesAsTheOriginalInitWeights) {
  torch::manual_seed(15);
  BevFormerConstructer bev(bev_small_options());
  auto p = bev->named_parameters();
  const std::string tsa = "encoder.layers.1.attentions.0.";
  const std::string msda = "encoder.layers.1.attentions.1.deformable_attention.";
  EXPECT_TRUE(p[tsa + "sampling_offsets.weight"].eq(0).all().item<bool>());
  EXPECT_TRUE(p[tsa + "sampling_offsets.bias"].equal(deformable_offset_bias_init(2, 2, 2)));
  EXPECT_TRUE(p[msda + "sampling_offsets.bias"].equal(deformable_offset_bias_init(2, 2, 4)));
  for (const std::string& key :
       {tsa + "attention_weights.weight", tsa + "attention_weights.bias",
        msda + "attention_weights.weight", tsa + "value_proj.bias", msda + "value_proj.bias",
        std::string("encoder.layers.1.attentions.1.output_proj.bias")}) {
    EXPECT_TRUE(p[key].eq(0).all().item<bool>()) << key;
  }
  EXPECT_GT(p["can_bus_mlp.0.bias"].abs().sum().item<double>(), 0.0);
  const at::Tensor& bev_embedding = p["bev_embedding.weight"];  // [24, 16]
  EXPECT_LE(bev_embedding.abs().max().item<double>(), std::sqrt(6.0 / (24 + 16)));
  EXPECT_GT(p["level_embeds"].abs().max().item<double>(), std::sqrt(6.0 / (2 + 16)));
}

TEST(BevFormerConstructer, BatchOfTwoEqualsEachSampleAloneForTheSameRig) {
  torch::manual_seed(11);
  BevFormerConstructer bev(bev_small_options());
  bev_perturb(*bev);
  bev->eval();
  torch::NoGradGuard no_grad;
  const std::vector<at::Tensor> feats = bev_random_features(2);
  const at::Tensor rig = bev_front_rear_rig();
  const at::Tensor can_bus = torch::randn({2, 18}, torch::kDouble);

  const at::Tensor batched = bev->forward(feats, rig.expand({2, -1, -1, -1}), kBevImageHw, can_bus);
  ASSERT_EQ(batched.sizes(), (std::vector<int64_t>{2, 24, kBevDims}));
  for (int64_t b = 0; b < 2; ++b) {
    std::vector<at::Tensor> single;
    for (const at::Tensor& feat : feats) single.push_back(feat.narrow(0, b, 1));
    const at::Tensor alone = bev->forward(single, rig, kBevImageHw, can_bus.narrow(0, b, 1));
    EXPECT_TRUE(torch::allclose(batched.narrow(0, b, 1), alone, 1e-5, 1e-5)) << "sample " << b;
  }
  EXPECT_FALSE(torch::allclose(batched[0], batched[1], 1e-3, 1e-3));
}

TEST(BevFormerConstructer, EveryParameterGetsAFiniteNonZeroGradient) {
  torch::manual_seed(12);
  BevFormerConstructer bev(bev_small_options());
  bev_perturb(*bev);
  bev->train();
  const at::Tensor out =
      bev->forward(bev_random_features(2), bev_front_rear_rig().expand({2, -1, -1, -1}),
                   kBevImageHw, torch::randn({2, 18}));
  // A weighted sum: a plain one has no gradient through the final LayerNorm's normalisation.
  (out * torch::randn_like(out)).sum().backward();
  for (const auto& item : bev->named_parameters()) {
    const at::Tensor& grad = item.value().grad();
    ASSERT_TRUE(grad.defined()) << item.key();
    EXPECT_TRUE(grad.isfinite().all().item<bool>()) << item.key();
    EXPECT_GT(grad.abs().sum().item<double>(), 0.0) << item.key();
  }
}

// Under bf16 autocast the projections run in bf16 and the sampling in fp32: the result stays
// fp32 and close to the fp32 one.
TEST(BevFormerConstructer, RunsUnderAutocastCloseToFloat32) {
  torch::manual_seed(14);
  BevFormerConstructer bev(bev_small_options());
  bev_perturb(*bev);
  bev->eval();
  torch::NoGradGuard no_grad;
  const std::vector<at::Tensor> feats = bev_random_features(2);
  const at::Tensor rig = bev_front_rear_rig().expand({2, -1, -1, -1});
  const at::Tensor can_bus = torch::randn({2, 18});
  const at::Tensor reference = bev->forward(feats, rig, kBevImageHw, can_bus);
  at::Tensor mixed;
  {
    const AutocastGuard autocast(c10::kCPU, AutocastState{true, c10::ScalarType::BFloat16});
    mixed = bev->forward(feats, rig, kBevImageHw, can_bus);
  }
  EXPECT_EQ(mixed.scalar_type(), torch::kFloat);
  EXPECT_TRUE(mixed.isfinite().all().item<bool>());
  EXPECT_LT((mixed - reference).abs().max().item<double>(), 0.1);
}

// Original behaviour: a camera updates the queries sample 0 sees in it, for every sample; the
// divisor counts each sample's own cameras, at least 1.
TEST(SpatialCrossAttention, SelectsQueriesBySampleZerosMaskAndCountsEachSamplesOwn) {
  torch::manual_seed(13);
  SpatialCrossAttentionOptions options;
  options.embed_dims = options.deformable_attention.embed_dims = kBevDims;
  options.num_cams = kBevCams;
  options.dropout = 0.0;
  options.deformable_attention.num_heads = 2;
  options.deformable_attention.num_levels = 2;
  options.deformable_attention.num_points = 4;
  SpatialCrossAttention sca(options);
  bev_perturb(*sca);
  torch::NoGradGuard no_grad;
  const int64_t queries = 5, anchors = 2;
  const at::Tensor query = torch::randn({2, queries, kBevDims});
  const at::Tensor tokens = torch::randn({2, kBevCams, 8 * 10 + 4 * 5, kBevDims});
  CameraReferencePoints points;
  points.points = torch::rand({kBevCams, 2, queries, anchors, 2});
  points.mask = torch::zeros({kBevCams, 2, queries, anchors}, torch::kBool);
  points.mask[0][0][1][0] = true;  // sample 0: query 1 in camera 0, query 2 in both cameras
  points.mask[0][0][2][1] = true;
  points.mask[1][0][2][0] = true;
  points.mask[1][1][1][1] = true;  // sample 1: query 1 in camera 1 only, query 3 in camera 0
  points.mask[0][1][3][0] = true;

  const at::Tensor out = sca->forward(query, tokens, points, kBevLevels);
  const at::Tensor per_camera =
      sca->deformable_attention()
          ->forward(query.unsqueeze(1)
                        .expand({2, kBevCams, queries, kBevDims})
                        .reshape({2 * kBevCams, queries, kBevDims}),
                    tokens.reshape({2 * kBevCams, -1, kBevDims}),
                    points.points.transpose(0, 1).reshape({2 * kBevCams, queries, anchors, 2}),
                    kBevLevels)
          .view({2, kBevCams, queries, kBevDims});
  at::Tensor slots = torch::zeros({2, queries, kBevDims});
  slots.select(1, 1) = per_camera.select(1, 0).select(1, 1);  // sample 0's selection
  slots.select(1, 2) = per_camera.select(1, 0).select(1, 2) + per_camera.select(1, 1).select(1, 2);
  slots[0][2] /= 2;  // sample 0 sees query 2 in two cameras, sample 1 in none (count 1)
  auto params = sca->named_parameters();
  const at::Tensor expected =
      query + torch::nn::functional::linear(slots, params["output_proj.weight"],
                                            params["output_proj.bias"]);
  EXPECT_TRUE(torch::allclose(out, expected, 1e-5, 1e-5));
}

}  // namespace
}  // namespace olv2
