// MapTRHead on a small BEV: every layer's predictions in their shapes and ranges, and its losses
// where the original stops: a frame without any area.
#include "olv2/models/heads/maptr_head.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>

namespace olv2 {
namespace {

MapTrHeadOptions small_head() {
  MapTrHeadOptions o;
  o.in_channels = 16;
  o.bev_h = 4;
  o.bev_w = 5;
  o.num_vec = 3;
  o.num_pts_per_vec = 4;
  o.num_pts_per_gt_vec = 4;
  o.transformer.embed_dims = 16;
  o.transformer.num_layers = 2;
  o.transformer.self_attention.embed_dims = 16;
  o.transformer.self_attention.num_heads = 4;
  o.transformer.cross_attention.embed_dims = 16;
  o.transformer.cross_attention.num_heads = 4;
  o.transformer.ffn.embed_dims = 16;
  o.transformer.ffn.feedforward_channels = 32;
  return o;
}

TEST(MapTrHead, PredictsEveryLayersInstancesAndTheirPoints) {
  torch::manual_seed(0);
  MapTrHead head(small_head());
  const MapTrOutputs out = head->forward(torch::randn({2, 20, 16}));
  EXPECT_EQ(out.cls_scores.sizes(), (std::vector<int64_t>{2, 2, 3, 2}));
  EXPECT_EQ(out.points.sizes(), (std::vector<int64_t>{2, 2, 3, 4, 3}));
  EXPECT_EQ(out.decoder.inter_states.sizes(), (std::vector<int64_t>{2, 2, 12, 16}));
  // The points are the regression scaled to pc_range: a regression of 0 is pc_range's minimum.
  const at::Tensor low = torch::tensor({-51.2f, -25.6f, -2.3f});
  const at::Tensor extent = torch::tensor({102.4f, 51.2f, 4.0f});
  EXPECT_TRUE(torch::allclose(out.points.flatten(0, 3),
                              out.decoder.regressions.flatten(0, 2) * extent + low));
  // Every reference stays inside the BEV after refinement.
  EXPECT_TRUE((out.decoder.inter_references > 0).all().item<bool>());
  EXPECT_TRUE((out.decoder.inter_references < 1).all().item<bool>());
}

TEST(MapTrHead, AFrameWithoutAreasTrainsItsQueriesAsBackground) {
  torch::manual_seed(0);
  MapTrHead head(small_head());
  const MapTrOutputs out = head->forward(torch::randn({2, 20, 16}));
  const at::Tensor crossing =
      torch::tensor({{0.0, 0.0, 0.0}, {2.0, 0.0, 0.0}, {2.0, 2.0, 0.0}, {0.0, 0.0, 0.0}},
                    torch::kDouble)
          .unsqueeze(0);
  const std::vector<AreaTargets> targets = {
      {torch::zeros({0, 4, 3}, torch::kDouble), torch::zeros({0}, torch::kLong)},
      {crossing, torch::tensor({0}, torch::kLong)}};
  const DetrHeadLosses losses = head->loss(out, targets, {});
  ASSERT_EQ(losses.losses.size(), 6u);
  EXPECT_EQ(losses.losses[1].first, "loss_reg");
  EXPECT_EQ(losses.losses[4].first, "d0.loss_pts");
  for (const auto& [name, value] : losses.losses) {
    EXPECT_TRUE(std::isfinite(value.item<double>())) << name;
  }
  // The empty frame has no positive; the other frame's one area is matched once a layer.
  for (const auto& layer : losses.assign_results) {
    EXPECT_EQ(layer[0].pos_inds.numel(), 0);
    EXPECT_EQ(layer[1].pos_inds.numel(), 1);
  }
  at::Tensor total = torch::zeros({});
  for (const auto& [name, value] : losses.losses) total = total + value;
  total.backward();
  for (const auto& entry : head->named_parameters()) {
    if (!entry.value().requires_grad()) continue;
    ASSERT_TRUE(entry.value().grad().defined()) << entry.key();
    EXPECT_TRUE(torch::isfinite(entry.value().grad()).all().item<bool>()) << entry.key();
  }
}

}  // namespace
}  // namespace olv2
