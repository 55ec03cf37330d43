// MapTR's matching of point sets in their best order, on hand-made sets whose costs are plain.
#include "olv2/assign/maptr_assigner.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "olv2/models/heads/maptr_head.h"

namespace olv2 {
namespace {

TEST(PointSetOrders, APolygonInEveryRotationAPolylineBothWays) {
  // A closed square of 5 points (the last repeats the first) and an open line of 5 points.
  const auto square = torch::tensor(
      {{0.0, 0.0, 0.0}, {1.0, 0.0, 0.0}, {1.0, 1.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 0.0}},
      torch::kDouble);
  const auto line = torch::tensor(
      {{0.0, 0.0, 0.0}, {1.0, 0.0, 0.0}, {2.0, 0.0, 0.0}, {3.0, 0.0, 0.0}, {4.0, 0.0, 1.0}},
      torch::kDouble);
  const at::Tensor orders = point_set_orders(torch::stack({square, line}));
  ASSERT_EQ(orders.sizes(), (std::vector<int64_t>{2, 5, 5, 3}));
  EXPECT_EQ(orders.scalar_type(), torch::kFloat);
  // Rotation k starts at the ring's point (4 - k) mod 4 and closes on it; rotation 4 is the
  // first again, as rolling 4 points by 4 is.
  for (int64_t k = 0; k < 5; ++k) {
    const at::Tensor ring = square.narrow(0, 0, 4).roll(k, 0);
    EXPECT_TRUE(torch::equal(orders[0][k].narrow(0, 0, 4), ring.to(torch::kFloat))) << k;
    EXPECT_TRUE(torch::equal(orders[0][k][4], ring[0].to(torch::kFloat))) << k;
  }
  EXPECT_TRUE(torch::equal(orders[1][0], line.to(torch::kFloat)));
  EXPECT_TRUE(torch::equal(orders[1][1], line.flip(0).to(torch::kFloat)));
  EXPECT_TRUE(torch::equal(orders[1].narrow(0, 2, 3), torch::full({3, 5, 3}, -10000.0f)));
  EXPECT_EQ(point_set_orders(torch::zeros({0, 5, 3}, torch::kDouble)).sizes(),
            (std::vector<int64_t>{0, 5, 5, 3}));
}

TEST(MapTrAssigner, MatchesEachSetInTheOrderClosestToItsQuery) {
  const auto line =
      torch::tensor({{0.0, 0.0, 0.0}, {1.0, 0.0, 0.0}, {2.0, 0.0, 0.0}}, torch::kDouble);
  const auto other = line + 10.0;
  const at::Tensor orders = point_set_orders(torch::stack({line, other}));
  // Query 0 near `other` as drawn, query 1 near `line` reversed, query 2 far from both.
  const at::Tensor predictions =
      torch::stack({other.to(torch::kFloat) + 0.1f, line.flip(0).to(torch::kFloat) - 0.1f,
                    torch::full({3, 3}, 50.0f)})
          .flatten(1);
  MapTrAssignerOptions options;
  AssignInputs inputs;
  inputs.predictions = predictions;
  inputs.cls_logits = torch::zeros({3, 2});
  inputs.targets = orders.flatten(2);
  inputs.labels = torch::tensor({0, 1}, torch::kLong);
  const AssignResult result = options.build()->assign(inputs);
  EXPECT_TRUE(torch::equal(result.pos_inds, torch::tensor({0, 1}, torch::kLong)));
  EXPECT_TRUE(torch::equal(result.pos_assigned_gt_inds, torch::tensor({1, 0}, torch::kLong)));
  EXPECT_TRUE(torch::equal(result.pos_assigned_orders, torch::tensor({0, 1}, torch::kLong)));

  inputs.targets = torch::zeros({0, 3, 9});
  inputs.labels = torch::zeros({0}, torch::kLong);
  const AssignResult none = options.build()->assign(inputs);
  EXPECT_EQ(none.pos_inds.numel(), 0);
  EXPECT_EQ(none.pos_assigned_orders.numel(), 0);
}

}  // namespace
}  // namespace olv2
