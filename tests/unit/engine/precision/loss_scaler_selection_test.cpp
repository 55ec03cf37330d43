// Which DeepSpeed loss scaler runs, with which settings, as DeepSpeed's engine
// picks it: FP16_Optimizer for fp16 without ZeRO, ZeRO's DynamicLossScaler
// (built by CreateLossScaler) from stage 1 on, DynamicLossScaler for the YAML.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "olv2/config/config_loader.h"
#include "olv2/engine/precision/loss_scaler.h"
#include "olv2/engine/settings/deepspeed_config.h"
#include "olv2/engine/settings/training_settings.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

const char* kSelectionYaml = R"(
optimizer: {type: AdamW, lr: 2.0e-4, weight_decay: 1.0e-4}
lr_config: {policy: CosineAnnealing, warmup: linear, warmup_iters: 500,
            warmup_ratio: 0.3333333333333333, min_lr_ratio: 1.0e-3}
data: {samples_per_gpu: 1}
)";

TrainingSettings yaml_settings(const std::string& extra = "") {
  return training_settings_from_config(parse_yaml(kSelectionYaml + extra, "demo.yaml"));
}

nlohmann::json original_json() {
  std::ifstream in(test::source_dir() / "configs/ds/original.json");
  return nlohmann::json::parse(in);
}

TrainingSettings with_json(const nlohmann::json& json, const std::string& name = "ds.json") {
  return apply_deepspeed_config(yaml_settings(), parse_deepspeed_config(json.dump(), name), 1);
}

nlohmann::json original_with_zero_stage(int stage) {
  nlohmann::json json = original_json();
  json["zero_optimization"] = {{"stage", stage}};
  return json;
}

std::string line_of(const TrainingSettings& settings, const std::string& setting) {
  const SettingSource* source = settings.source_of(setting);
  return source ? source->line() : "";
}

TEST(LossScalerSelection, TheOriginalJsonRunsFp16Optimizer) {
  const TrainingSettings settings = apply_deepspeed_config(
      yaml_settings(), read_deepspeed_config(test::source_dir() / "configs/ds/original.json"), 1);
  EXPECT_TRUE(settings.precision.fp16);
  EXPECT_EQ(settings.precision.scaler_kind, LossScalerKind::kFp16Optimizer);
  EXPECT_EQ(settings.precision.scaler.initial_scale_power, 16);
  EXPECT_EQ(settings.precision.scaler.loss_scale_window, 1000);
  EXPECT_EQ(settings.precision.scaler.min_loss_scale, 1.0);
  const std::string line = line_of(settings, "loss scaler");
  EXPECT_NE(line.find("= DeepSpeed FP16_Optimizer loss scaler (no hysteresis"), std::string::npos)
      << line;
  EXPECT_NE(line.find("original.json fp16 without ZeRO (FusedAdam in FP16_Optimizer)"),
            std::string::npos)
      << line;
  EXPECT_TRUE(settings.notes.empty());
}

TEST(LossScalerSelection, ZeroStageZeroIsStillFp16Optimizer) {
  EXPECT_EQ(with_json(original_with_zero_stage(0)).precision.scaler_kind,
            LossScalerKind::kFp16Optimizer);
}

// With one process there is nothing to shard: the note says so; the stage is kept for the
// run (several ranks shard by it).
TEST(LossScalerSelection, ZeroStageOneRunsDynamicLossScalerAndNotesNoSharding) {
  const TrainingSettings settings = with_json(original_with_zero_stage(1), "zero1.json");
  EXPECT_EQ(settings.precision.scaler_kind, LossScalerKind::kDynamicLossScaler);
  EXPECT_EQ(line_of(settings, "zero_optimization.stage"),
            "zero_optimization.stage = 1 <- zero1.json zero_optimization.stage");
  EXPECT_NE(line_of(settings, "loss scaler").find("= DeepSpeed DynamicLossScaler"),
            std::string::npos);
  ASSERT_EQ(settings.notes.size(), 1u);
  EXPECT_NE(settings.notes[0].find("ZeRO stage 1"), std::string::npos) << settings.notes[0];
  EXPECT_NE(settings.notes[0].find("with one process: nothing to shard"), std::string::npos)
      << settings.notes[0];
  EXPECT_EQ(settings.zero_stage, 1);
  const TrainingSettings two_ranks = apply_deepspeed_config(
      yaml_settings(), parse_deepspeed_config(original_with_zero_stage(2).dump(), "z.json"), 2);
  EXPECT_EQ(two_ranks.zero_stage, 2);
  EXPECT_TRUE(two_ranks.notes.empty());
}

// get_dynamic_loss_scale_args returns None, so CreateLossScaler builds
// DynamicLossScaler with its class defaults.
TEST(LossScalerSelection, ZeroWithOnlyFp16EnabledTakesTheClassDefaults) {
  const TrainingSettings settings = with_json(original_with_zero_stage(2));
  EXPECT_EQ(settings.precision.scaler_kind, LossScalerKind::kDynamicLossScaler);
  EXPECT_EQ(settings.precision.scaler.initial_scale_power, 32);
  EXPECT_EQ(settings.precision.scaler.hysteresis, 1);
  EXPECT_EQ(settings.precision.scaler.loss_scale_window, 1000);
  EXPECT_EQ(settings.precision.scaler.min_loss_scale, 1.0);
  EXPECT_TRUE(settings.precision.scaler.raise_error_at_min_scale);
}

TEST(LossScalerSelection, LossScaleAloneIsNotADynamicScalingKey) {
  nlohmann::json json = original_with_zero_stage(2);
  json["fp16"]["loss_scale"] = 0;
  EXPECT_EQ(with_json(json).precision.scaler.initial_scale_power, 32);
}

TEST(LossScalerSelection, AnyDynamicScalingKeyBringsTheConfigDefaultsUnderZero) {
  nlohmann::json json = original_with_zero_stage(2);
  json["fp16"]["loss_scale_window"] = 500;
  const TrainingSettings settings = with_json(json);
  EXPECT_EQ(settings.precision.scaler.initial_scale_power, 16);
  EXPECT_EQ(settings.precision.scaler.hysteresis, 2);
  EXPECT_EQ(settings.precision.scaler.loss_scale_window, 500);
}

// FP16_UnfusedOptimizer's own defaults differ from FP16_Optimizer's in the minimum.
TEST(LossScalerSelection, TorchAdamWithoutZeroTakesFp16UnfusedOptimizersMinimum) {
  nlohmann::json json = original_json();
  json["optimizer"]["params"]["torch_adam"] = true;
  const TrainingSettings settings = with_json(json);
  EXPECT_EQ(settings.precision.scaler_kind, LossScalerKind::kFp16Optimizer);
  EXPECT_EQ(settings.precision.scaler.min_loss_scale, 0.25);
  json["fp16"]["min_loss_scale"] = 2;
  EXPECT_EQ(with_json(json).precision.scaler.min_loss_scale, 2.0);
}

TEST(LossScalerSelection, HysteresisKeysWithoutZeroAreNotedAsWithoutEffect) {
  nlohmann::json json = original_json();
  json["fp16"]["hysteresis"] = 4;
  const TrainingSettings settings = with_json(json);
  ASSERT_EQ(settings.notes.size(), 1u);
  EXPECT_NE(settings.notes[0].find("fp16.hysteresis: no effect"), std::string::npos)
      << settings.notes[0];
}

TEST(LossScalerSelection, TheYamlFp16SectionKeepsDynamicLossScaler) {
  const TrainingSettings settings = yaml_settings("fp16: {loss_scale_window: 500}\n");
  EXPECT_TRUE(settings.precision.fp16);
  EXPECT_EQ(settings.precision.scaler_kind, LossScalerKind::kDynamicLossScaler);
  EXPECT_EQ(settings.precision.scaler.initial_scale_power, 16);
  EXPECT_EQ(settings.precision.scaler.hysteresis, 2);
  EXPECT_NE(line_of(settings, "loss scaler").find("= DeepSpeed DynamicLossScaler"),
            std::string::npos);
}

}  // namespace
}  // namespace olv2
