#include "olv2/losses/focal_loss.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>

namespace olv2 {
namespace {

constexpr double kAlpha = 0.25;
constexpr double kEps = std::numeric_limits<float>::epsilon();

// The focal loss element of spec §4.1, written out in double precision.
double focal_element(double logit, bool positive) {
  const double p = 1.0 / (1.0 + std::exp(-logit));
  return positive ? -kAlpha * (1 - p) * (1 - p) * std::log(p)
                  : -(1 - kAlpha) * p * p * std::log(1 - p);
}

TEST(FocalLoss, EqualsTheClosedFormWithAvgFactor) {
  const auto pred = torch::tensor({{0.0, 2.0, -1.5}, {0.7, -3.0, 4.0}}, torch::kFloat);
  const auto labels = torch::tensor({1, 3}, torch::kLong);  // 3 = background: all targets 0
  const double expected =
      (focal_element(0.0, false) + focal_element(2.0, true) + focal_element(-1.5, false) +
       focal_element(0.7, false) + focal_element(-3.0, false) + focal_element(4.0, false)) /
      (1.0 + kEps);
  const auto loss = FocalLoss{}.compute(pred, labels, torch::ones({2}), 1.0);
  EXPECT_NEAR(loss.item<double>(), expected, 1e-6 * expected);
}

TEST(FocalLoss, AtZeroLogitIsTheTextbookValue) {
  // p = 0.5: positive 0.25 * 0.25 * ln 2, negative 0.75 * 0.25 * ln 2.
  const auto pred = torch::zeros({1, 2});
  const auto loss = FocalLoss{}.compute(pred, torch::tensor({0}, torch::kLong), {}, std::nullopt);
  EXPECT_NEAR(loss.item<double>(), (0.0625 + 0.1875) * std::log(2.0) / 2, 1e-7);
}

TEST(FocalLoss, AppliesWeightsAndLossWeight) {
  const auto pred = torch::tensor({{1.0}, {-2.0}}, torch::kFloat);
  const auto labels = torch::tensor({0, 1}, torch::kLong);
  FocalLoss loss_options;
  loss_options.loss_weight = 2.0;
  const auto loss = loss_options.compute(pred, labels, torch::tensor({0.0, 1.0}), 4.0);
  EXPECT_NEAR(loss.item<double>(), 2.0 * focal_element(-2.0, false) / (4.0 + kEps), 1e-8);
}

TEST(FocalLoss, GradientMatchesTheAnalyticDerivative) {
  const double x = 0.3;
  const auto pred =
      torch::tensor({{x}}, torch::TensorOptions().dtype(torch::kDouble).requires_grad(true));
  FocalLoss{}.compute(pred, torch::tensor({0}, torch::kLong), {}, std::nullopt).backward();
  const double h = 1e-6;
  const double numeric = (focal_element(x + h, true) - focal_element(x - h, true)) / (2 * h);
  EXPECT_NEAR(pred.grad().item<double>(), numeric, 1e-8);
}

}  // namespace
}  // namespace olv2
