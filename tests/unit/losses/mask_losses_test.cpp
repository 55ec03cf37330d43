// The sigmoid cross-entropy and Dice losses and match costs of LaneSegNet's masks and line types,
// against values computed by hand.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>

#include "olv2/assign/match_costs.h"
#include "olv2/config/config_loader.h"
#include "olv2/losses/cross_entropy_loss.h"
#include "olv2/losses/dice_loss.h"
#include "olv2/util/error.h"
#include "support/input_error.h"

namespace olv2 {
namespace {

const double kLn2 = std::log(2.0);
const double kLn3 = std::log(3.0);

// sigmoid(ln 3) = 3/4: BCE against 1 is ln(4/3), against 0 is ln 4; sigmoid(0) = 1/2: ln 2 both.
TEST(CrossEntropyLoss, LabelsAreOneHotRowsAndTheBackgroundIsAZeroRow) {
  CrossEntropyLoss loss;
  loss.loss_weight = 2.0;
  const at::Tensor logits = torch::tensor({{0.0, kLn3}, {0.0, kLn3}}, torch::kDouble);
  const at::Tensor labels = torch::tensor({1, 2}, torch::kLong);  // class 1, background
  const double expected = (kLn2 + std::log(4.0 / 3.0)) + (kLn2 + std::log(4.0));
  EXPECT_NEAR(loss.compute(logits, labels, {}, std::nullopt).item<double>(), 2.0 * expected / 4.0,
              1e-12);
  // A sum over `avg_factor` (plus float32's epsilon, as mmdet), and per-row weights.
  EXPECT_NEAR(
      loss.compute(logits, labels, torch::tensor({1.0, 0.0}, torch::kDouble), 3.0).item<double>(),
      2.0 * (kLn2 + std::log(4.0 / 3.0)) / (3.0 + 1.1920928955078125e-07), 1e-12);
}

TEST(CrossEntropyLoss, TargetsOfTheLogitsShapeAreComparedElementByElement) {
  const at::Tensor logits = torch::tensor({{kLn3}, {kLn3}, {0.0}}, torch::kDouble);
  const at::Tensor masks = torch::tensor({{true}, {false}, {true}});
  EXPECT_NEAR(CrossEntropyLoss{}.compute(logits, masks, {}, 3.0).item<double>(),
              (std::log(4.0 / 3.0) + std::log(4.0) + kLn2) / (3.0 + 1.1920928955078125e-07), 1e-12);
}

// What the original supports for training, read; the rest refused naming the key.
TEST(CrossEntropyLoss, OnlyTheSigmoidFormIsRead) {
  const auto refusal = [](const std::string& yaml) {
    ConfigNode section = parse_yaml(yaml, "c.yaml");
    section.assign_paths("loss_mask");
    return test::input_error_of([&] { CrossEntropyLoss::from_config(section); });
  };
  EXPECT_NE(refusal("{type: CrossEntropyLoss, use_sigmoid: false}").find("use_sigmoid"),
            std::string::npos);
  EXPECT_NE(refusal("{type: CrossEntropyLoss, class_weight: [1, 2]}").find("class_weight"),
            std::string::npos);
  EXPECT_DOUBLE_EQ(
      CrossEntropyLoss::from_config(
          parse_yaml("{type: CrossEntropyLoss, use_sigmoid: true, loss_weight: 3.0}", "c.yaml"))
          .loss_weight,
      3.0);
}

// Sigmoid(0) = 1/2 on four cells, the target covers two: overlap 1, |p| = 2, |t| = 2.
TEST(DiceLoss, NaiveAndSquaredDice) {
  const at::Tensor logits = torch::zeros({1, 2, 2}, torch::kDouble);
  const at::Tensor target = torch::tensor({{{1.0, 1.0}, {0.0, 0.0}}}, torch::kDouble);
  DiceLoss naive;
  naive.naive_dice = true;
  naive.eps = 1.0;
  EXPECT_NEAR(naive.compute(logits, target, {}, std::nullopt).item<double>(),
              1.0 - (2.0 + 1.0) / (4.0 + 1.0), 1e-12);
  DiceLoss squared;  // |p|^2 = 1, |t|^2 = 2, eps 1e-3 on each
  EXPECT_NEAR(squared.compute(logits, target, {}, std::nullopt).item<double>(),
              1.0 - 2.0 / (1.001 + 2.001), 1e-12);
}

TEST(MaskMatchCosts, DiceOnRawPredictionsAndMeanCrossEntropy) {
  DiceCost dice;
  dice.eps = 1.0;
  dice.weight = 3.0;
  const at::Tensor preds = torch::tensor({{1.0, 0.0}, {0.0, 2.0}}, torch::kDouble);
  const at::Tensor gt = torch::tensor({{1.0, 0.0}}, torch::kDouble);
  // Query 0: (2 + 1) / (1 + 1 + 1) = 1, cost 0; query 1: (0 + 1) / (2 + 1 + 1), cost 3 / 4.
  const at::Tensor cost = dice.cost(preds, gt);
  EXPECT_NEAR(cost[0][0].item<double>(), 0.0, 1e-12);
  EXPECT_NEAR(cost[1][0].item<double>(), 3.0 * 0.75, 1e-12);

  CrossEntropyLossCost cross_entropy;
  const at::Tensor ce = cross_entropy.cost(torch::tensor({{kLn3, 0.0}}), torch::tensor({{1, 0}}));
  EXPECT_NEAR(ce[0][0].item<double>(), (std::log(4.0 / 3.0) + kLn2) / 2.0, 1e-6);
}

}  // namespace
}  // namespace olv2
