#include "olv2/models/activation_checkpoint.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "olv2/util/autocast_guard.h"

namespace olv2 {
namespace {

// conv → BN → ReLU → dropout, with a residual connection: randomness, state and
// parameters. The convolution has no bias, as in a ResNet: BatchNorm after it makes a bias's
// gradient zero in exact arithmetic, so every parameter here has a gradient that is not noise.
struct ResidualUnitImpl : torch::nn::Module {
  explicit ResidualUnitImpl(double dropout) {
    conv = register_module(
        "conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(4, 4, 3).padding(1).bias(false)));
    bn = register_module("bn", torch::nn::BatchNorm2d(4));
    drop = register_module("drop", torch::nn::Dropout(dropout));
  }
  torch::Tensor forward(const torch::Tensor& x) { return x + drop(torch::relu(bn(conv(x)))); }
  torch::nn::Conv2d conv{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
  torch::nn::Dropout drop{nullptr};
};
TORCH_MODULE(ResidualUnit);

struct Stack {
  explicit Stack(double dropout) {
    torch::manual_seed(3);
    for (int i = 0; i < 3; ++i) units.push_back(ResidualUnit(dropout));
  }
  torch::Tensor forward(torch::Tensor x, bool use_checkpoint) {
    for (ResidualUnit& unit : units) {
      if (use_checkpoint) {
        x = checkpoint([unit](const torch::Tensor& in) mutable { return unit->forward(in); }, x,
                       unit->parameters());
      } else {
        x = unit->forward(x);
      }
    }
    return x;
  }
  std::vector<torch::Tensor> parameters() const {
    std::vector<torch::Tensor> all;
    for (const ResidualUnit& unit : units) {
      for (const torch::Tensor& p : unit->parameters()) all.push_back(p);
    }
    return all;
  }
  std::vector<ResidualUnit> units;
};

struct RunResult {
  std::vector<torch::Tensor> grads;
  torch::Tensor input_grad;
  torch::Tensor output;
};

RunResult run(double dropout, bool use_checkpoint, bool input_requires_grad, bool autocast) {
  Stack stack(dropout);
  torch::manual_seed(11);
  torch::Tensor x = torch::randn({2, 4, 6, 6}).requires_grad_(input_requires_grad);
  torch::manual_seed(12);
  torch::Tensor y;
  {
    std::unique_ptr<AutocastGuard> guard;
    if (autocast)
      guard = std::make_unique<AutocastGuard>(c10::kCPU, AutocastState{true, torch::kBFloat16});
    y = stack.forward(x, use_checkpoint);
  }
  (y.to(torch::kFloat) * torch::linspace(-1, 1, y.numel()).view(y.sizes())).sum().backward();
  RunResult result;
  for (const torch::Tensor& p : stack.parameters()) result.grads.push_back(p.grad().clone());
  if (input_requires_grad) result.input_grad = x.grad().clone();
  result.output = y.detach();
  return result;
}

void expect_identical(const RunResult& plain, const RunResult& checkpointed) {
  ASSERT_EQ(plain.grads.size(), checkpointed.grads.size());
  EXPECT_TRUE(torch::equal(plain.output, checkpointed.output));
  for (size_t i = 0; i < plain.grads.size(); ++i) {
    EXPECT_TRUE(torch::equal(plain.grads[i], checkpointed.grads[i])) << "parameter " << i;
    EXPECT_GT(plain.grads[i].abs().sum().item<double>(), 0.0) << "parameter " << i;
  }
  if (plain.input_grad.defined()) {
    EXPECT_TRUE(torch::equal(plain.input_grad, checkpointed.input_grad));
  }
}

TEST(ActivationCheckpoint, GradientsEqualPlainRunWithoutDropout) {
  expect_identical(run(0.0, false, true, false), run(0.0, true, true, false));
}

TEST(ActivationCheckpoint, DropoutMasksAreReplayed) {
  const RunResult plain = run(0.3, false, true, false);
  expect_identical(plain, run(0.3, true, true, false));
  // The replay restores the RNG afterwards: a second run draws the same masks
  // again.
  expect_identical(plain, run(0.3, true, true, false));
}

TEST(ActivationCheckpoint, ParametersGetGradientsWhenInputNeedsNone) {
  expect_identical(run(0.3, false, false, false), run(0.3, true, false, false));
}

TEST(ActivationCheckpoint, AutocastStateIsReplayedInBackward) {
  const RunResult plain = run(0.0, false, true, true);
  // Autocast was really on: the bf16 run differs from the fp32 one.
  EXPECT_FALSE(torch::equal(plain.output, run(0.0, false, true, false).output));
  expect_identical(plain, run(0.0, true, true, true));
  EXPECT_FALSE(AutocastState::current(c10::kCPU).enabled);
}

TEST(ActivationCheckpoint, RecomputationUpdatesBatchNormStatisticsAgain) {
  torch::manual_seed(5);
  torch::nn::BatchNorm2d bn(torch::nn::BatchNorm2dOptions(3).momentum(0.5));
  torch::Tensor x = torch::randn({4, 3, 2, 2}, torch::requires_grad());
  torch::Tensor y =
      checkpoint([bn](const torch::Tensor& in) mutable { return bn(in); }, x, bn->parameters());
  const torch::Tensor mean = x.detach().mean({0, 2, 3});
  EXPECT_TRUE(torch::allclose(bn->running_mean, mean * 0.5));
  y.sum().backward();
  EXPECT_TRUE(torch::allclose(bn->running_mean, mean * 0.75));
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 2);
}

TEST(ActivationCheckpoint, SeveralInputsAndOutputs) {
  torch::manual_seed(7);
  torch::Tensor a = torch::randn({3, 5}, torch::requires_grad());
  torch::Tensor b = torch::randn({3, 5}, torch::requires_grad());
  torch::Tensor w = torch::randn({5, 5}, torch::requires_grad());
  auto segment = [w](const std::vector<torch::Tensor>& in) {
    return std::vector<torch::Tensor>{in[0].mm(w).tanh(), (in[0] * in[1]).sin()};
  };
  auto loss = [](const std::vector<torch::Tensor>& out) {
    return out[0].sum() * 2 + out[1].pow(2).sum();
  };
  loss(segment({a, b})).backward();
  const torch::Tensor ga = a.grad().clone(), gb = b.grad().clone(), gw = w.grad().clone();
  a.grad().zero_();
  b.grad().zero_();
  w.grad().zero_();
  loss(checkpoint(segment, {a, b}, {w})).backward();
  EXPECT_TRUE(torch::equal(ga, a.grad()));
  EXPECT_TRUE(torch::equal(gb, b.grad()));
  EXPECT_TRUE(torch::equal(gw, w.grad()));
}

}  // namespace
}  // namespace olv2
