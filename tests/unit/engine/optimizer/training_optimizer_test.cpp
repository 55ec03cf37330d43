// The optimizer-step boundary: an overflow under a loss scaler skips exactly that step; a
// non-finite gradient without one stops the run before the weights change.
#include "olv2/engine/optimizer/training_optimizer.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <limits>

#include "olv2/engine/hooks/lr_schedule_hook.h"
#include "olv2/engine/hooks/optimizer_hook.h"
#include "olv2/engine/optimizer/replicated_optimizer.h"
#include "olv2/engine/precision/dynamic_loss_scaler.h"
#include "olv2/engine/train_context.h"
#include "olv2/solver/adam.h"
#include "olv2/solver/deepspeed_schedules.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

struct LinearStep {
  explicit LinearStep(std::unique_ptr<LossScaler> scaler = nullptr) {
    torch::manual_seed(0);
    params.names = {"layer.weight", "layer.bias"};
    params.tensors = {layer->weight, layer->bias};
    ParamGroup group;
    group.params = params.tensors;
    group.lr = 1e-2;
    optimizer = std::make_unique<ReplicatedOptimizer>(
        params, std::make_shared<AdamOptions>(), std::vector<ParamGroup>{group},
        std::make_unique<SingleProcessGradientSync>(), std::move(scaler));
  }

  void backward(bool inject_inf_in_bias) {
    optimizer->zero_grad();
    optimizer->backward(layer->forward(torch::ones({4, 3})).pow(2).sum(), true);
    if (inject_inf_in_bias) layer->bias.mutable_grad()[1] = std::numeric_limits<float>::infinity();
  }

  std::vector<torch::Tensor> weights() const {
    std::vector<torch::Tensor> copies;
    for (const auto& p : params.tensors) copies.push_back(p.detach().clone());
    return copies;
  }

  torch::nn::Linear layer{3, 2};
  TrainableParams params;
  std::unique_ptr<TrainingOptimizer> optimizer;
};

bool same(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (!torch::equal(a[i], b[i])) return false;
  }
  return true;
}

// A real injected overflow through the LR and optimizer hooks: the step is skipped, weights
// and the DeepSpeed schedule stay where they were, and the scale drops once the hysteresis is
// used up.
TEST(OptimizerHook, AnOverflowSkipsExactlyThatStep) {
  LossScalerOptions scaler_options;
  scaler_options.hysteresis = 1;
  LinearStep step(std::make_unique<DynamicLossScaler>(scaler_options));
  const LossScaler& scaler = *step.optimizer->loss_scaler();
  auto schedule_options = std::make_shared<WarmupLrOptions>();
  schedule_options->warmup.type = "linear";
  schedule_options->warmup.num_steps = 10;
  schedule_options->min_lr = 1e-3;  // every step moves the weights
  schedule_options->max_lr = 1e-2;
  DeepSpeedSchedule schedule(schedule_options, {{1e-2, 1.0}});

  TrainContext context;
  context.optimizer = step.optimizer.get();
  context.scheduler = &schedule;
  LrScheduleHook lr_hook;
  OptimizerHook optimizer_hook(GradClipOptions{});
  const auto one_step = [&](bool inject_inf) {
    lr_hook.before_step(context);
    step.backward(inject_inf);
    optimizer_hook.after_backward(context);
    ++context.iteration;
    lr_hook.after_step(context);
    return context.step.outcome;
  };

  ASSERT_TRUE(one_step(false).applied);
  const std::vector<torch::Tensor> before = step.weights();
  const double scale_before = scaler.scale();
  const int64_t schedule_before = schedule.last_batch_iteration();
  const StepOutcome skipped = one_step(true);
  EXPECT_FALSE(skipped.applied);
  EXPECT_EQ(skipped.loss_scale, scale_before);
  EXPECT_TRUE(std::isnan(skipped.grad_norm));
  EXPECT_TRUE(same(step.weights(), before));
  EXPECT_EQ(schedule.last_batch_iteration(), schedule_before);
  EXPECT_EQ(scaler.scale(), scale_before / 2);
  EXPECT_EQ(scaler.skipped_steps(), 1);

  EXPECT_TRUE(one_step(false).applied);
  EXPECT_FALSE(same(step.weights(), before));
  EXPECT_EQ(schedule.last_batch_iteration(), schedule_before + 1);
}

TEST(TrainingOptimizerStep, ANonFiniteGradientWithoutAScalerStopsBeforeTheWeightsChange) {
  LinearStep step;
  step.backward(/*inject_inf_in_bias=*/true);
  const std::vector<torch::Tensor> before = step.weights();
  try {
    step.optimizer->step(GradClipOptions{}, 7);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("iter 7"), std::string::npos) << message;
    EXPECT_NE(message.find("`layer.bias` (inf)"), std::string::npos) << message;
  }
  EXPECT_TRUE(same(step.weights(), before));
}

TEST(TrainingOptimizerStep, ANanGradientIsNamedAsNan) {
  LinearStep step;
  step.backward(false);
  step.layer->weight.mutable_grad()[0][2] = std::numeric_limits<float>::quiet_NaN();
  try {
    step.optimizer->step(std::nullopt, 1);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("`layer.weight` (nan)"), std::string::npos)
        << error.what();
  }
}

TEST(TrainingOptimizerStep, FiniteGradientsStepAndReportTheNorm) {
  LinearStep step;
  step.backward(false);
  const std::vector<torch::Tensor> before = step.weights();
  const StepOutcome outcome = step.optimizer->step(std::nullopt, 1);
  EXPECT_TRUE(outcome.applied);
  EXPECT_GT(outcome.grad_norm, 0.0);
  EXPECT_FALSE(same(step.weights(), before));
}

}  // namespace
}  // namespace olv2
