#include "olv2/models/heads/lc_deformable_detr_head.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "olv2/util/autocast_guard.h"

namespace olv2 {
namespace {

LcDeformableDetrHeadOptions lc_small_options() {
  LcDeformableDetrHeadOptions options;
  options.in_channels = options.embed_dims = 16;
  options.num_heads = 2;
  options.num_query = 6;
  options.bev_h = 4;
  options.bev_w = 5;
  options.num_decoder_layers = 2;
  options.feedforward_channels = 24;
  return options;
}

// Two lanes near the ego vehicle, 5 control points each, in metres.
at::Tensor lc_two_gt_lanes() {
  const at::Tensor t = torch::linspace(0, 1, 5).unsqueeze(-1);
  const at::Tensor first = torch::cat({-20 + 40 * t, 2 * t, torch::zeros_like(t)}, -1);
  const at::Tensor second = torch::cat({-10 + 30 * t, -5 + 3 * t, 0.5 + 0 * t}, -1);
  return torch::stack({first.flatten(), second.flatten()});
}

TEST(LcDeformableDetrHead, InitialisesLikeTheOriginal) {
  torch::manual_seed(0);
  LcDeformableDetrHead head(lc_small_options());
  const auto params = head->named_parameters();
  EXPECT_TRUE(torch::equal(params["code_weights"], torch::ones({15})));
  EXPECT_FALSE(params["code_weights"].requires_grad());
  EXPECT_NEAR(params["cls_branches.1.6.bias"].item<double>(), -std::log(99.0), 1e-6);
  EXPECT_TRUE(torch::equal(params["transformer.reference_points.bias"], torch::zeros({3})));
  const std::string msda = "transformer.decoder.layers.0.attentions.1.";
  EXPECT_EQ(params[msda + "sampling_offsets.weight"].abs().sum().item<double>(), 0.0);
  EXPECT_EQ(params[msda + "attention_weights.weight"].abs().sum().item<double>(), 0.0);
  EXPECT_GT(
      params["transformer.decoder.layers.0.ffns.0.layers.0.0.bias"].abs().sum().item<double>(),
      0.0);  // biases keep PyTorch's init
}

TEST(LcDeformableDetrHead, OutputsEveryLayerInMetresWithinTheRangeForABatch) {
  torch::manual_seed(1);
  const LcDeformableDetrHeadOptions options = lc_small_options();
  LcDeformableDetrHead head(options);
  const HeadOutputs out = head->forward(torch::randn({3, 20, 16}));
  EXPECT_EQ(out.cls_scores.sizes(), (std::vector<int64_t>{2, 3, 6, 1}));
  EXPECT_EQ(out.reg_preds.sizes(), (std::vector<int64_t>{2, 3, 6, 15}));
  EXPECT_EQ(out.query_states.sizes(), (std::vector<int64_t>{2, 3, 6, 16}));
  const at::Tensor points = out.reg_preds.view({-1, 3});
  for (int64_t axis = 0; axis < 3; ++axis) {
    EXPECT_GE(points.select(1, axis).min().item<double>(), options.pc_range[axis]);
    EXPECT_LE(points.select(1, axis).max().item<double>(), options.pc_range[axis + 3]);
  }
  const Detections last = head->decode(out, 2, {}, {});
  EXPECT_TRUE(torch::equal(last.objects, out.reg_preds[1][2]));
  EXPECT_TRUE(torch::allclose(last.scores, out.cls_scores[1][2].sigmoid()));
}

// Spec §4.4: sync_cls_avg_factor is off, so only the regression average goes through
// reduce_mean.
TEST(LcDeformableDetrHead, AveragesOnlyTheRegressionLossOverRanks) {
  torch::manual_seed(2);
  LcDeformableDetrHead head(lc_small_options());
  const HeadOutputs out = head->forward(torch::randn({1, 20, 16}));
  const std::vector<at::Tensor> gt = {lc_two_gt_lanes()};
  const std::vector<at::Tensor> labels = {torch::zeros({2}, torch::kLong)};
  const DetrHeadLosses local = head->loss(out, gt, labels, {});
  const DetrHeadLosses doubled = head->loss(out, gt, labels, {}, [](double x) { return 2 * x; });
  ASSERT_EQ(local.losses.size(), 4u);
  for (size_t i = 0; i < local.losses.size(); ++i) {
    const bool cls = local.losses[i].first.find("cls") != std::string::npos;
    const double expected = local.losses[i].second.item<double>() * (cls ? 1.0 : 0.5);
    EXPECT_NEAR(doubled.losses[i].second.item<double>(), expected, 1e-6 * std::abs(expected))
        << local.losses[i].first;
  }
}

TEST(LcDeformableDetrHead, HandlesASampleWithoutLanesInTheBatch) {
  torch::manual_seed(3);
  LcDeformableDetrHead head(lc_small_options());
  const HeadOutputs out = head->forward(torch::randn({2, 20, 16}));
  const DetrHeadLosses losses =
      head->loss(out, {lc_two_gt_lanes(), torch::zeros({0, 15})},
                 {torch::zeros({2}, torch::kLong), torch::zeros({0}, torch::kLong)}, {});
  ASSERT_EQ(losses.assign_results.size(), 2u);
  EXPECT_EQ(losses.assign_results[1][0].pos_inds.numel(), 2);
  EXPECT_EQ(losses.assign_results[1][1].pos_inds.numel(), 0);
  for (const auto& [name, value] : losses.losses) {
    EXPECT_TRUE(std::isfinite(value.item<double>())) << name;
    EXPECT_GT(value.item<double>(), 0.0) << name;
  }
}

TEST(LcDeformableDetrHead, RunsUnderAutocastWithLanesInFloat32) {
  torch::manual_seed(4);
  LcDeformableDetrHead head(lc_small_options());
  HeadOutputs out;
  {
    AutocastGuard guard(c10::kCPU, AutocastState{true, torch::kBFloat16});
    out = head->forward(torch::randn({1, 20, 16}));
  }
  EXPECT_EQ(out.reg_preds.scalar_type(), torch::kFloat);
  const DetrHeadLosses losses =
      head->loss(out, {lc_two_gt_lanes()}, {torch::zeros({2}, torch::kLong)}, {});
  for (const auto& [name, value] : losses.losses) {
    EXPECT_EQ(value.scalar_type(), torch::kFloat) << name;
    EXPECT_TRUE(std::isfinite(value.item<double>())) << name;
  }
}

}  // namespace
}  // namespace olv2
