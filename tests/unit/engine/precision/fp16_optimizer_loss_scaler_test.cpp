// The loss scaler of DeepSpeed's FP16_Optimizer (the non-ZeRO fp16 path): the
// golden table step by step, rows worked out by hand from fused_optimizer.py's
// _update_scale, and the optimizer step through the LossScaler interface.
#include "olv2/engine/precision/fp16_optimizer_loss_scaler.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "olv2/engine/optimizer/replicated_optimizer.h"
#include "olv2/engine/precision/dynamic_loss_scaler.h"
#include "olv2/engine/precision/make_loss_scaler.h"
#include "olv2/solver/adam.h"
#include "olv2/solver/deepspeed_schedules.h"
#include "olv2/util/error.h"
#include "support/loss_scaler_table.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

// The table's overflow pattern (fixtures engine/README.md section 3).
std::vector<bool> overflow_pattern() {
  std::vector<bool> overflow(3000, false);
  for (const int step : {0, 1, 1200, 1250, 2500, 2502, 2990, 2991, 2992}) overflow[step] = true;
  for (int step = 1300; step <= 1320; ++step) overflow[step] = true;
  return overflow;
}

std::vector<double> scales_after(LossScaler& scaler, const std::vector<bool>& overflow) {
  std::vector<double> scales;
  for (const bool step_overflow : overflow) {
    scaler.update(step_overflow);
    scales.push_back(scaler.scale());
  }
  return scales;
}

std::vector<size_t> growth_steps(const std::vector<double>& scales, double initial) {
  std::vector<size_t> steps;
  for (size_t t = 0; t < scales.size(); ++t) {
    if (scales[t] > (t == 0 ? initial : scales[t - 1])) steps.push_back(t);
  }
  return steps;
}

TEST(Fp16OptimizerLossScaler, EveryStepMatchesDeepSpeedsFp16Optimizer) {
  OLV2_REQUIRE_FIXTURE(path, "engine/deepspeed_loss_scaler.json");
  const nlohmann::json table = test::read_loss_scaler_table(path);
  const nlohmann::json& params = table.at("variants").at("ds_fp16_optimizer").at("params");
  LossScalerOptions options;
  const double init = params.at("init_scale").get<double>();
  options.initial_scale_power = static_cast<int>(std::lround(std::log2(init)));
  ASSERT_EQ(std::ldexp(1.0, options.initial_scale_power), init);
  options.scale_factor = params.at("scale_factor").get<double>();
  options.loss_scale_window = params.at("scale_window").get<int64_t>();
  options.min_loss_scale = params.at("min_loss_scale").get<double>();
  // FP16_Optimizer has neither; the table's overflows at the minimum must not stop it.
  options.hysteresis = 2;
  options.raise_error_at_min_scale = true;
  Fp16OptimizerLossScaler scaler(options);
  EXPECT_EQ(test::replay_loss_scaler_table(scaler, table, "ds_fp16_optimizer"), "");
}

// From _update_scale: an overflow halves at once (no hysteresis); a clean step
// grows when cur_iter - last_overflow_iter - 1 is a positive multiple of the
// window, where DynamicLossScaler grows at cur_iter - last_overflow_iter.
TEST(Fp16OptimizerLossScaler, GrowsOneStepLaterThanDynamicLossScaler) {
  const std::vector<bool> overflow = overflow_pattern();
  Fp16OptimizerLossScaler fp16_optimizer(LossScalerOptions{});
  LossScalerOptions keep_going;
  keep_going.raise_error_at_min_scale = false;  // DynamicLossScaler would stop at step 1315
  DynamicLossScaler dynamic(keep_going);
  const std::vector<double> fp16_scales = scales_after(fp16_optimizer, overflow);
  const std::vector<double> dynamic_scales = scales_after(dynamic, overflow);

  EXPECT_EQ(growth_steps(fp16_scales, 65536.0), (std::vector<size_t>{1002, 2321}));
  EXPECT_EQ(growth_steps(dynamic_scales, 65536.0), (std::vector<size_t>{1001, 2320}));
  const std::vector<std::tuple<size_t, double, double>> rows = {
      {0, 32768, 65536},    {1, 16384, 32768},   {1001, 16384, 65536}, {1002, 32768, 65536},
      {1200, 16384, 65536}, {1250, 8192, 32768}, {1312, 1, 4},         {1313, 1, 2},
      {2320, 1, 2},         {2321, 2, 2},        {2999, 1, 1},
  };
  for (const auto& [step, fp16_scale, dynamic_scale] : rows) {
    EXPECT_EQ(fp16_scales[step], fp16_scale) << "FP16_Optimizer after step " << step;
    EXPECT_EQ(dynamic_scales[step], dynamic_scale) << "DynamicLossScaler after step " << step;
  }
  EXPECT_EQ(fp16_optimizer.skipped_steps(), 30);
}

TEST(Fp16OptimizerLossScaler, ClampsAtTheMinimumAndNeverStops) {
  LossScalerOptions options;
  options.initial_scale_power = 2;
  options.raise_error_at_min_scale = true;
  Fp16OptimizerLossScaler scaler(options);
  for (int step = 0; step < 10; ++step) scaler.update(true);
  EXPECT_EQ(scaler.scale(), 1.0);
  EXPECT_EQ(scaler.skipped_steps(), 10);
}

TEST(Fp16OptimizerLossScaler, StaticScaleSkipsOverflowStepsButNeverMoves) {
  LossScalerOptions options;
  options.loss_scale = 128.0;
  Fp16OptimizerLossScaler scaler(options);
  EXPECT_FALSE(scaler.dynamic());
  scaler.update(true);
  for (int step = 0; step < 2500; ++step) scaler.update(false);
  EXPECT_EQ(scaler.scale(), 128.0);
  EXPECT_EQ(scaler.skipped_steps(), 1);
}

TEST(Fp16OptimizerLossScaler, StateRoundTripContinuesTheSequence) {
  const std::vector<bool> overflow = overflow_pattern();
  Fp16OptimizerLossScaler first(LossScalerOptions{});
  for (size_t t = 0; t < 500; ++t) first.update(overflow[t]);
  const LossScalerState state = first.state();
  EXPECT_EQ(state.kind, LossScalerKind::kFp16Optimizer);
  Fp16OptimizerLossScaler resumed(LossScalerOptions{});
  resumed.load_state(state);
  for (size_t t = 500; t < overflow.size(); ++t) {
    first.update(overflow[t]);
    resumed.update(overflow[t]);
    ASSERT_EQ(resumed.scale(), first.scale()) << "step " << t;
  }
  EXPECT_EQ(resumed.skipped_steps(), first.skipped_steps());
}

TEST(Fp16OptimizerLossScaler, RefusesTheStateOfDynamicLossScaler) {
  Fp16OptimizerLossScaler scaler(LossScalerOptions{});
  try {
    scaler.load_state(DynamicLossScaler(LossScalerOptions{}).state());
    FAIL() << "accepted DynamicLossScaler state";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), ExitStatus::kBadInput);
    const std::string message = error.what();
    EXPECT_NE(message.find("DynamicLossScaler's but this run uses DeepSpeed FP16_Optimizer"),
              std::string::npos)
        << message;
  }
}

TEST(Fp16OptimizerLossScaler, DescribeSaysWhichDeepSpeedScalerRuns) {
  EXPECT_EQ(make_loss_scaler(LossScalerKind::kFp16Optimizer, LossScalerOptions{})->describe(),
            "DeepSpeed FP16_Optimizer loss scaler (no hysteresis, halves on every overflow, never "
            "stops at the minimum): initial 2^16, window 1000, min 1");
}

// Through the optimizer step: with DeepSpeed's default hysteresis 2 the first
// overflow already halves the scale, as FP16_Optimizer ignores hysteresis.
TEST(Fp16OptimizerLossScaler, HalvesAtTheFirstOverflowOfAnOptimizerStep) {
  torch::manual_seed(0);
  torch::nn::Linear layer(3, 2);
  const TrainableParams params{{"weight", "bias"}, {layer->weight, layer->bias}};
  ParamGroup group;
  group.params = params.tensors;
  group.lr = 1e-2;
  ReplicatedOptimizer optimizer(
      params, std::make_shared<AdamOptions>(), std::vector<ParamGroup>{group},
      std::make_unique<SingleProcessGradientSync>(),
      make_loss_scaler(LossScalerKind::kFp16Optimizer, LossScalerOptions{}));
  const LossScaler* scaler = optimizer.loss_scaler();

  optimizer.backward(layer->forward(torch::ones({4, 3})).pow(2).sum(), true);
  layer->weight.mutable_grad()[0][0] = std::numeric_limits<float>::infinity();
  const StepOutcome outcome = optimizer.step(GradClipOptions{}, 1);
  EXPECT_FALSE(outcome.applied);
  EXPECT_EQ(outcome.loss_scale, 65536.0);
  EXPECT_EQ(scaler->scale(), 32768.0);
  EXPECT_EQ(scaler->skipped_steps(), 1);
}

}  // namespace
}  // namespace olv2
