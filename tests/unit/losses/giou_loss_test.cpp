#include "olv2/losses/giou_loss.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <limits>

#include "olv2/losses/box_ops.h"
#include "olv2/losses/l1_loss.h"

namespace olv2 {
namespace {

constexpr double kFloatEpsilon = std::numeric_limits<float>::epsilon();

TEST(GeneralizedBoxIou, EqualsHandComputedValues) {
  // Overlapping: inter 1, union 7, hull 9 -> 1/7 - 2/9. Disjoint: union 2, hull 3 -> -1/3.
  const auto a = torch::tensor({{0.0, 0.0, 2.0, 2.0}, {0.0, 0.0, 1.0, 1.0}, {1.0, 2.0, 4.0, 6.0}});
  const auto b = torch::tensor({{1.0, 1.0, 3.0, 3.0}, {2.0, 0.0, 3.0, 1.0}, {1.0, 2.0, 4.0, 6.0}});
  const auto giou = generalized_box_iou(a, b, /*aligned=*/true);
  EXPECT_NEAR(giou[0].item<double>(), 1.0 / 7 - 2.0 / 9, 1e-6);
  EXPECT_NEAR(giou[1].item<double>(), -1.0 / 3, 1e-6);
  EXPECT_NEAR(giou[2].item<double>(), 1.0, 1e-6);
}

TEST(GeneralizedBoxIou, PairwiseEqualsAligned) {
  const auto a = torch::tensor({{0.0, 0.0, 2.0, 2.0}, {0.5, 0.5, 1.0, 3.0}});
  const auto b = torch::tensor({{1.0, 1.0, 3.0, 3.0}, {2.0, 0.0, 3.0, 1.0}, {0.0, 0.0, 1.0, 1.0}});
  const auto pairwise = generalized_box_iou(a, b, /*aligned=*/false);
  ASSERT_EQ(pairwise.sizes(), (std::vector<int64_t>{2, 3}));
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      const auto aligned = generalized_box_iou(a[i].unsqueeze(0), b[j].unsqueeze(0), true);
      EXPECT_FLOAT_EQ(pairwise[i][j].item<float>(), aligned[0].item<float>());
    }
  }
}

TEST(GiouLoss, AveragesOneMinusGiouOverAvgFactor) {
  const auto pred = torch::tensor({{0.0, 0.0, 2.0, 2.0}, {0.0, 0.0, 1.0, 1.0}});
  const auto target = torch::tensor({{1.0, 1.0, 3.0, 3.0}, {2.0, 0.0, 3.0, 1.0}});
  const auto weight = torch::ones({2, 4});
  const double expected = ((1 - (1.0 / 7 - 2.0 / 9)) + (1 + 1.0 / 3)) / (2 + kFloatEpsilon);
  EXPECT_NEAR(GIoULoss{}.compute(pred, target, weight, 2.0).item<double>(), expected, 1e-6);
}

TEST(GiouLoss, IsExactlyZeroWithoutPositives) {
  const auto pred = torch::rand({3, 4}).requires_grad_(true);
  const auto loss = GIoULoss{}.compute(pred, torch::rand({3, 4}), torch::zeros({3, 4}), 1.0);
  EXPECT_EQ(loss.item<double>(), 0.0);
  loss.backward();
  EXPECT_TRUE(pred.grad().defined());
}

TEST(BoxConversions, RoundTrip) {
  const auto xyxy = torch::tensor({{1.0, 2.0, 5.0, 10.0}});
  const auto cxcywh = bbox_xyxy_to_cxcywh(xyxy);
  EXPECT_TRUE(torch::equal(cxcywh, torch::tensor({{3.0, 6.0, 4.0, 8.0}})));
  EXPECT_TRUE(torch::equal(bbox_cxcywh_to_xyxy(cxcywh), xyxy));
}

TEST(L1Loss, SumsEveryDimensionOverAvgFactor) {
  const auto pred = torch::tensor({{0.1, 0.5}, {0.9, 0.2}});
  const auto target = torch::tensor({{0.0, 1.0}, {0.0, 0.0}});
  const auto weight = torch::tensor({{1.0, 1.0}, {0.0, 0.0}});
  L1Loss loss;
  loss.loss_weight = 2.5;
  EXPECT_NEAR(loss.compute(pred, target, weight, 1.0).item<double>(),
              2.5 * 0.6 / (1 + kFloatEpsilon), 1e-6);
}

}  // namespace
}  // namespace olv2
