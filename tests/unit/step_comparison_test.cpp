// The comparisons the GPU tests make between two training steps: a gradient that is
// cancellation noise passes under the floor, a real difference does not, and the worst entries
// are listed largest first.
#include "support/step_comparison.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <limits>

namespace olv2::test {
namespace {

StepResult step_with(const at::Tensor& large, const at::Tensor& tiny) {
  StepResult step;
  step.losses = {{"loss_cls", 2.0}, {"loss_reg", 0.5}};
  step.grads = {{"head.weight", large}, {"head.bias", tiny}};
  return step;
}

TEST(StepComparison, CancellationNoiseInATinyGradientPassesOnlyUnderTheFloor) {
  const at::Tensor large = torch::randn({64, 32}, torch::kDouble);
  const at::Tensor tiny = torch::full({32}, 1e-9, torch::kDouble);
  const StepResult expected = step_with(large, tiny);
  // The tiny gradient's sign flips: 200 % of itself, 1e-8 of the largest gradient's norm.
  const StepResult actual = step_with(large.clone(), -tiny);
  EXPECT_TRUE(compare_gradients(actual, expected, "noise").failures(1e-4).empty());
  EXPECT_EQ(compare_gradients(actual, expected, "no floor", 0.0).failures(1e-4).size(), 1u);
}

TEST(StepComparison, ARealDifferenceInALargeGradientOrALossFails) {
  const at::Tensor large = torch::randn({64, 32}, torch::kDouble);
  const at::Tensor tiny = torch::full({32}, 1e-9, torch::kDouble);
  const StepResult expected = step_with(large, tiny);
  StepResult actual = step_with(large * (1 + 1e-3), tiny);
  actual.losses["loss_reg"] = 0.5 * (1 + 1e-3);
  const auto gradient_failures = compare_gradients(actual, expected, "g").failures(1e-4);
  ASSERT_EQ(gradient_failures.size(), 1u);
  EXPECT_NE(gradient_failures[0].find("head.weight"), std::string::npos);
  const auto loss_failures = compare_losses(actual, expected, "l").failures(1e-4);
  ASSERT_EQ(loss_failures.size(), 1u);
  EXPECT_NE(loss_failures[0].find("loss_reg"), std::string::npos);
}

TEST(StepComparison, MissingOrNonFiniteGradientsAndMissingTermsFail) {
  const at::Tensor large = torch::randn({8}, torch::kDouble);
  const StepResult expected = step_with(large, torch::ones({2}, torch::kDouble));
  StepResult actual = step_with(large.clone(), torch::ones({2}, torch::kDouble));
  actual.grads["head.weight"][3] = std::numeric_limits<double>::quiet_NaN();
  actual.grads.erase("head.bias");
  actual.losses.erase("loss_cls");
  EXPECT_EQ(compare_gradients(actual, expected, "g").failures(1e-4).size(), 3u)
      << "not finite, its NaN difference, and head.bias missing";
  EXPECT_EQ(compare_losses(actual, expected, "l").failures(1e-4).size(), 1u);
}

TEST(StepComparison, TheWorstEntriesComeLargestFirst) {
  StepResult expected, actual;
  for (int i = 0; i < 7; ++i) {
    const std::string name = "term" + std::to_string(i);
    expected.losses[name] = 1.0;
    actual.losses[name] = 1.0 + 1e-6 * i;
  }
  const std::string text = compare_losses(actual, expected, "losses").worst();
  EXPECT_EQ(text.rfind("losses: the worst 5 of 7\n", 0), 0u) << text;
  EXPECT_LT(text.find("term6"), text.find("term5"));
  EXPECT_LT(text.find("term3"), text.find("term2"));
  EXPECT_EQ(text.find("term1"), std::string::npos);
}

}  // namespace
}  // namespace olv2::test
