#include "olv2/assign/hungarian_assigner.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "olv2/assign/lane_hungarian_assigner.h"
#include "olv2/assign/match_costs.h"
#include "olv2/config/config_loader.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

TEST(FocalLossCost, EqualsPositiveMinusNegativeFocalTerm) {
  const double x = 0.4;
  const double p = 1 / (1 + std::exp(-x));
  const double expected =
      0.25 * (1 - p) * (1 - p) * -std::log(p + 1e-12) - 0.75 * p * p * -std::log(1 - p + 1e-12);
  const auto cost =
      focal_loss_cost(torch::tensor({{0.0, x}}), torch::tensor({1}, torch::kLong), {});
  EXPECT_NEAR(cost[0][0].item<double>(), expected, 1e-6);
}

TEST(LaneHungarianAssigner, MatchesEachGtToTheNearestNormalisedPrediction) {
  LaneHungarianAssignerOptions options;
  options.bev_range = {-50, -25, -3, 50, 25, 2};
  options.normalize = true;
  // Two GT "lanes" of one point each: (0, 0, -0.5) and (25, 12.5, 2) metres normalise to
  // (0.5, 0.5, 0.5) and (0.75, 0.75, 1.0).
  const auto gt = torch::tensor({{0.0, 0.0, -0.5}, {25.0, 12.5, 2.0}});
  const auto pred = torch::tensor({{0.75, 0.75, 1.0}, {0.1, 0.1, 0.1}, {0.5, 0.5, 0.5}});
  const auto logits = torch::zeros({3, 1});
  const AssignResult result =
      LaneHungarianAssigner(options).assign({pred, logits, gt, torch::zeros({2}, torch::kLong)});
  EXPECT_TRUE(torch::equal(result.pos_inds, torch::tensor({0, 2}, torch::kLong)));
  EXPECT_TRUE(torch::equal(result.pos_assigned_gt_inds, torch::tensor({1, 0}, torch::kLong)));
  EXPECT_TRUE(torch::equal(result.neg_inds, torch::tensor({1}, torch::kLong)));
}

TEST(HungarianAssigner, WithoutGroundTruthEveryQueryIsNegative) {
  const AssignResult result =
      HungarianAssigner({}).assign({torch::rand({4, 4}), torch::rand({4, 3}), torch::zeros({0, 4}),
                                    torch::zeros({0}, torch::kLong), 120, 160});
  EXPECT_EQ(result.pos_inds.numel(), 0);
  EXPECT_EQ(result.neg_inds.numel(), 4);
}

TEST(HungarianAssigner, PrefersTheOverlappingBox) {
  // GT box covers the left half of a 100 x 200 (h x w) image; query 1 predicts it exactly.
  const auto gt = torch::tensor({{0.0, 0.0, 100.0, 100.0}});
  const auto pred = torch::tensor({{0.75, 0.5, 0.5, 1.0}, {0.25, 0.5, 0.5, 1.0}});
  const AssignResult result = HungarianAssigner({}).assign(
      {pred, torch::zeros({2, 2}), gt, torch::tensor({1}, torch::kLong), 100, 200});
  EXPECT_TRUE(torch::equal(result.pos_inds, torch::tensor({1}, torch::kLong)));
}

// The registry builds either assigner from its section; a head's slot refuses an assigner of the
// other objects, naming the section.
TEST(AssignerRegistry, BuildsByTypeAndHeadsCheckTheObjects) {
  const ConfigNode lane = parse_yaml("{type: LaneHungarianAssigner, normalize: true}", "cfg.yaml");
  const std::shared_ptr<const AssignerOptions> options = assigner_registry().read(lane);
  EXPECT_EQ(options->objects(), AssignedObjects::kLanes);
  EXPECT_TRUE(dynamic_cast<const LaneHungarianAssignerOptions&>(*options).normalize);
  EXPECT_NO_THROW(require_assigned_objects(*options, AssignedObjects::kLanes, lane));
  try {
    require_assigned_objects(*options, AssignedObjects::kBoxes, lane);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what())
                  .find("this head matches boxes, `LaneHungarianAssigner` "
                        "matches lanes"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace olv2
