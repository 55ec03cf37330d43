#include "olv2/models/heads/custom_detr_head.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "olv2/assign/lane_hungarian_assigner.h"

namespace olv2 {
namespace {

CustomDetrHeadOptions small_lane_head() {
  CustomDetrHeadOptions options;
  options.object_type = DetrObjectType::kLane;
  options.assigner = std::make_shared<LaneHungarianAssignerOptions>();
  options.num_classes = 1;
  options.in_channels = 8;
  options.num_query = 3;
  options.num_reg_dim = 6;
  options.embed_dims = 16;
  options.num_heads = 2;
  options.feedforward_channels = 32;
  return options;
}

TEST(CustomDetrHead, LaneOutputsHaveOneEntryPerDecoderLayerAndQuery) {
  torch::manual_seed(1);
  CustomDetrHead head(small_lane_head());
  const HeadOutputs out = head->forward(torch::randn({2, 8, 4, 6}), {});
  EXPECT_EQ(out.cls_scores.sizes(), (std::vector<int64_t>{1, 2, 3, 1}));
  EXPECT_EQ(out.reg_preds.sizes(), (std::vector<int64_t>{1, 2, 3, 6}));
  EXPECT_EQ(out.query_states.sizes(), (std::vector<int64_t>{1, 2, 3, 16}));
  EXPECT_EQ(out.intermediates.at("memory").sizes(), (std::vector<int64_t>{2, 16, 4, 6}));
}

// The original crashes on a frame without lanes; here every query is simply negative.
TEST(CustomDetrHead, FrameWithoutLanesIsAllNegative) {
  torch::manual_seed(2);
  CustomDetrHead head(small_lane_head());
  const HeadOutputs out = head->forward(torch::randn({1, 8, 4, 6}), {});
  const DetrHeadLosses losses =
      head->loss(out, {torch::zeros({0, 6})}, {torch::zeros({0}, torch::kLong)}, {});
  EXPECT_EQ(losses.assign_results[0][0].pos_inds.numel(), 0);
  EXPECT_EQ(losses.losses[1].first, "loss_bbox");
  EXPECT_EQ(losses.losses[1].second.item<double>(), 0.0);
  EXPECT_TRUE(std::isfinite(losses.losses[0].second.item<double>()));
}

TEST(CustomDetrHead, MoreLanesThanQueriesMatchesEveryQuery) {
  torch::manual_seed(3);
  CustomDetrHead head(small_lane_head());
  const HeadOutputs out = head->forward(torch::randn({1, 8, 4, 6}), {});
  const DetrHeadLosses losses =
      head->loss(out, {torch::randn({5, 6})}, {torch::zeros({5}, torch::kLong)}, {});
  EXPECT_EQ(losses.assign_results[0][0].pos_inds.numel(), 3);
}

TEST(CustomDetrHead, BoxDecodingScalesClampsAndRescales) {
  CustomDetrHeadOptions options;
  options.num_classes = 3;
  options.in_channels = 8;
  options.num_query = 2;
  options.embed_dims = 16;
  options.num_heads = 2;
  CustomDetrHead head(options);
  // Query 0: centred box of half the image; query 1 spills over the right edge.
  const auto reg = torch::tensor({{0.5, 0.5, 0.5, 0.5}, {0.9, 0.5, 0.4, 0.2}});
  const auto cls = torch::tensor({{0.0, 2.0, -1.0}, {1.0, 1.0, 0.0}});
  const Detections boxes = head->decode_boxes(cls, reg, {100, 200}, {2.0, 0.5, 2.0, 0.5});
  const auto expected = torch::tensor({{50.0 / 2, 25.0 / 0.5, 150.0 / 2, 75.0 / 0.5, 1.0},
                                       {140.0 / 2, 40.0 / 0.5, 200.0 / 2, 60.0 / 0.5, 0.0}});
  EXPECT_TRUE(torch::allclose(boxes.objects, expected, 1e-5, 1e-4));
  EXPECT_NEAR(boxes.scores[0].item<double>(), 1 / (1 + std::exp(-2.0)), 1e-6);
}

}  // namespace
}  // namespace olv2
