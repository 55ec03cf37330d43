// DynamicLossScaler against DeepSpeed's own DynamicLossScaler driven by a fixed
// overflow pattern (golden table), and the unscale/skip path on real gradients.
#include "olv2/engine/precision/loss_scaler.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include "olv2/engine/precision/dynamic_loss_scaler.h"
#include "olv2/engine/precision/make_loss_scaler.h"
#include "olv2/engine/settings/deepspeed_config.h"
#include "olv2/engine/settings/training_settings.h"
#include "olv2/solver/deepspeed_schedules.h"
#include "olv2/solver/optimizer.h"
#include "olv2/util/error.h"
#include "support/loss_scaler_table.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

nlohmann::json read_table() {
  return test::read_loss_scaler_table(test::fixture_path("engine/deepspeed_loss_scaler.json"));
}

LossScalerOptions options_from(const nlohmann::json& params) {
  LossScalerOptions options;
  const double init = params.at("init_scale").get<double>();
  options.initial_scale_power = static_cast<int>(std::lround(std::log2(init)));
  EXPECT_EQ(std::ldexp(1.0, options.initial_scale_power), init);
  options.scale_factor = params.at("scale_factor").get<double>();
  options.loss_scale_window = params.at("scale_window").get<int64_t>();
  options.min_loss_scale = params.at("min_scale").get<double>();
  options.hysteresis = params.at("delayed_shift").get<int>();
  options.consecutive_hysteresis = params.at("consecutive_hysteresis").get<bool>();
  options.raise_error_at_min_scale = params.at("raise_error_at_min_scale").get<bool>();
  return options;
}

// The variants whose semantics we implement (the issue's list; the others are
// references).
class DeepSpeedScalerTable : public ::testing::TestWithParam<std::string> {};

TEST_P(DeepSpeedScalerTable, EveryStepMatches) {
  OLV2_REQUIRE_FIXTURE(path, "engine/deepspeed_loss_scaler.json");
  const nlohmann::json table = read_table();
  ASSERT_EQ(table.at("overflow").size(), table.at("num_steps").get<size_t>());
  DynamicLossScaler scaler(options_from(table.at("variants").at(GetParam()).at("params")));
  EXPECT_EQ(test::replay_loss_scaler_table(scaler, table, GetParam()), "");
}

INSTANTIATE_TEST_SUITE_P(Variants, DeepSpeedScalerTable,
                         ::testing::Values("ds_dynamic_loss_scaler",
                                           "ds_dynamic_loss_scaler_consecutive_hysteresis"));

// ZeRO's scaler for a JSON whose fp16 section names no dynamic-scaling key:
// CreateLossScaler without dynamic_loss_args, i.e. the class defaults.
TEST(DynamicLossScaler, ZeroWithOnlyFp16EnabledMatchesCreateLossScalerWithoutArgs) {
  OLV2_REQUIRE_FIXTURE(path, "engine/deepspeed_loss_scaler.json");
  const TrainingSettings settings = apply_deepspeed_config(
      TrainingSettings{},
      parse_deepspeed_config(R"({"fp16": {"enabled": true}, "zero_optimization": {"stage": 2}})",
                             "zero2.json"),
      1);
  ASSERT_EQ(settings.precision.scaler_kind, LossScalerKind::kDynamicLossScaler);
  const std::unique_ptr<LossScaler> scaler =
      make_loss_scaler(settings.precision.scaler_kind, settings.precision.scaler);
  EXPECT_EQ(test::replay_loss_scaler_table(*scaler, read_table(), "ds_create_loss_scaler_no_args"),
            "");
}

TEST(DynamicLossScaler, StopsAtTheMinimumScaleByDefault) {
  OLV2_REQUIRE_FIXTURE(path, "engine/deepspeed_loss_scaler.json");
  const nlohmann::json table = read_table();
  const nlohmann::json& variant = table.at("variants").at("ds_dynamic_loss_scaler");
  const int64_t raises_at =
      variant.at("with_raise_error_at_min_scale_true").at("raises_at_step").get<int64_t>();
  LossScalerOptions options = options_from(variant.at("params"));
  options.raise_error_at_min_scale = true;
  DynamicLossScaler scaler(options);
  const auto& overflow = table.at("overflow");
  for (int64_t t = 0; t < raises_at; ++t) {
    scaler.update(overflow[t].get<int>() != 0);
    ASSERT_EQ(scaler.scale(), variant.at("scale_after")[t].get<double>()) << "step " << t;
  }
  try {
    scaler.update(overflow[raises_at].get<int>() != 0);
    FAIL() << "expected the run to stop at step " << raises_at;
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), ExitStatus::kFailure);
    EXPECT_NE(std::string(error.what()).find("step " + std::to_string(raises_at)),
              std::string::npos)
        << error.what();
  }
}

TEST(DynamicLossScaler, StateRoundTripContinuesTheSequence) {
  DynamicLossScaler first(LossScalerOptions{});
  for (const bool overflow : {true, false, true, true, false}) first.update(overflow);
  DynamicLossScaler resumed(LossScalerOptions{});
  resumed.load_state(first.state());
  first.update(true);
  resumed.update(true);
  EXPECT_EQ(resumed.scale(), first.scale());
  EXPECT_EQ(resumed.hysteresis_left(), first.hysteresis_left());
  EXPECT_EQ(resumed.skipped_steps(), first.skipped_steps());
}

TEST(DynamicLossScaler, RefusesTheStateOfTheFp16OptimizerScaler) {
  const std::unique_ptr<LossScaler> fp16_optimizer =
      make_loss_scaler(LossScalerKind::kFp16Optimizer, LossScalerOptions{});
  DynamicLossScaler scaler(LossScalerOptions{});
  try {
    scaler.load_state(fp16_optimizer->state());
    FAIL() << "accepted FP16_Optimizer state";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), ExitStatus::kBadInput);
    const std::string message = error.what();
    EXPECT_NE(message.find("FP16_Optimizer's but this run uses DeepSpeed DynamicLossScaler"),
              std::string::npos)
        << message;
  }
}

TEST(DynamicLossScaler, DescribeNamesDeepSpeedsClass) {
  EXPECT_EQ(DynamicLossScaler(LossScalerOptions{}).describe(),
            "DeepSpeed DynamicLossScaler: initial 2^16, window 1000, hysteresis 2, min 1, at the "
            "minimum: stop the run");
}

TEST(UnscaleGradients, DividesByTheScaleAndFindsNonFiniteValues) {
  torch::Tensor a = torch::ones({3}, torch::requires_grad());
  torch::Tensor b = torch::ones({2}, torch::requires_grad());
  a.mutable_grad() = torch::full({3}, 8.0);
  b.mutable_grad() = torch::full({2}, 4.0);
  EXPECT_FALSE(unscale_gradients({a, b}, 0.25));
  EXPECT_TRUE(torch::equal(a.grad(), torch::full({3}, 2.0)));
  EXPECT_TRUE(torch::equal(b.grad(), torch::full({2}, 1.0)));
  b.mutable_grad()[1] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(unscale_gradients({a, b}, 1.0));
}

}  // namespace
}  // namespace olv2
