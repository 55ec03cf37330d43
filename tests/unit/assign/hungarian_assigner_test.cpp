#include "olv2/assign/hungarian_assigner.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <functional>
#include <string>

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
      FocalLossCost{}.cost(torch::tensor({{0.0, x}}), torch::tensor({1}, torch::kLong));
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

// The registry builds either assigner from a head's train_cfg; the head refuses an assigner of
// the other objects, naming the section.
TEST(AssignerRegistry, BuildsByTypeAndHeadsCheckTheObjects) {
  const ConfigNode head = parse_yaml(
      "train_cfg: {assigner: {type: LaneHungarianAssigner, normalize: true}}", "cfg.yaml");
  const std::shared_ptr<const AssignerOptions> options =
      read_train_cfg_assigner(head, AssignedObjects::kLanes, nullptr);
  EXPECT_EQ(options->objects(), AssignedObjects::kLanes);
  EXPECT_TRUE(dynamic_cast<const LaneHungarianAssignerOptions&>(*options).normalize);
  try {
    read_train_cfg_assigner(head, AssignedObjects::kBoxes, nullptr);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what())
                  .find("this head matches boxes, `LaneHungarianAssigner` "
                        "matches lanes"),
              std::string::npos)
        << error.what();
  }
  const ConfigNode bare = parse_yaml("{num_classes: 1}", "cfg.yaml");
  const auto fallback = std::make_shared<HungarianAssignerOptions>();
  EXPECT_EQ(read_train_cfg_assigner(bare, AssignedObjects::kBoxes, fallback), fallback);
  EXPECT_THROW(read_train_cfg_assigner(bare, AssignedObjects::kBoxes, nullptr), Error);
}

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

// Costs are chosen by type through their registry: an assigner sums what its config names, and
// refuses a cost of other predictions or an unknown type, naming the key and the known types.
TEST(MatchCostRegistry, AssignersSumTheConfiguredCosts) {
  const ConfigNode section = parse_yaml(
      "{type: HungarianAssigner, cls_cost: {type: FocalLossCost, weight: 0.0},"
      " reg_cost: {type: BBoxL1Cost, weight: 2.0, box_format: xywh},"
      " iou_cost: {type: IoUCost, weight: 0.0}}",
      "cfg.yaml");
  const auto options = HungarianAssignerOptions::from_config(section);
  const auto pred = torch::tensor({{0.5, 0.5, 0.5, 0.5}});
  const auto gt = torch::tensor({{0.0, 0.0, 50.0, 100.0}});  // (cx, cy, w, h) = (.25, .5, .5, 1)
  const at::Tensor cost = HungarianAssigner(options).cost(
      {pred, torch::zeros({1, 1}), gt, torch::zeros({1}, torch::kLong), 100, 100});
  EXPECT_NEAR(cost.item<double>(), 2.0 * (0.25 + 0.0 + 0.0 + 0.5), 1e-6);

  const std::string wrong_kind = error_of([] {
    LaneHungarianAssignerOptions::from_config(
        parse_yaml("{type: LaneHungarianAssigner, reg_cost: {type: BBoxL1Cost}}", "cfg.yaml"));
  });
  EXPECT_NE(wrong_kind.find("cfg.yaml:1"), std::string::npos) << wrong_kind;
  EXPECT_NE(wrong_kind.find("key `reg_cost`: `BBoxL1Cost` cannot compare lane points"),
            std::string::npos)
      << wrong_kind;
  const std::string unknown = error_of(
      [] { match_cost_registry().read(parse_yaml("{type: ClassificationCost}", "cfg.yaml")); });
  EXPECT_NE(unknown.find("unknown match cost type `ClassificationCost` (expected one of: "
                         "BBoxL1Cost, CrossEntropyLossCost, DiceCost, FocalLossCost, IoUCost, "
                         "LaneL1Cost)"),
            std::string::npos)
      << unknown;
}

}  // namespace
}  // namespace olv2
