#include "olv2/losses/pts_dir_cos_loss.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

namespace olv2 {
namespace {

// 1 - cos of two 2-D directions, by hand.
double turn(double ax, double ay, double bx, double by) {
  return 1.0 - (ax * bx + ay * by) / (std::hypot(ax, ay) * std::hypot(bx, by));
}

TEST(PtsDirCosLoss, IsOneMinusCosineWeightedOverTheAvgFactor) {
  // Two sets of two directions; the second set's last direction weighted out.
  const auto pred = torch::tensor({{{1.0, 0.0}, {1.0, 1.0}}, {{0.0, 2.0}, {-1.0, 0.0}}});
  const auto target = torch::tensor({{{2.0, 0.0}, {0.0, 1.0}}, {{1.0, 1.0}, {1.0, 0.0}}});
  const auto weight = torch::tensor({{1.0, 1.0}, {1.0, 0.0}});
  PtsDirCosLoss loss;
  loss.loss_weight = 0.5;
  const double expected = 0.5 * (turn(1, 0, 2, 0) + turn(1, 1, 0, 1) + turn(0, 2, 1, 1)) / 4.0;
  EXPECT_NEAR(loss.compute(pred, target, weight, 4.0).item<double>(), expected, 1e-6);
}

TEST(PtsDirCosLoss, ReversedDirectionsCostTwoAndItNeedsAnAvgFactor) {
  const auto pred = torch::tensor({{{3.0, -1.0}}});
  EXPECT_NEAR(PtsDirCosLoss{}.compute(pred, -pred, {}, 1.0).item<double>(), 2.0, 1e-6);
  EXPECT_THROW(PtsDirCosLoss{}.compute(pred, pred, {}, std::nullopt), std::exception);
}

}  // namespace
}  // namespace olv2
