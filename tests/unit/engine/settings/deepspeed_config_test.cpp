// DeepSpeed JSON: validation with JSON paths, DeepSpeed's batch-key inference,
// and the precedence of JSON keys over the YAML config.
#include "olv2/engine/settings/deepspeed_config.h"

#include <gtest/gtest.h>

#include "olv2/config/config_loader.h"
#include "olv2/engine/settings/training_settings.h"
#include "olv2/solver/adam.h"
#include "olv2/solver/sgd.h"
#include "olv2/util/error.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

std::string input_error_of(const std::string& json) {
  try {
    parse_deepspeed_config(json, "ds.json");
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), ExitStatus::kBadInput);
    return error.what();
  }
  ADD_FAILURE() << "accepted: " << json;
  return "";
}

TEST(DeepSpeedConfig, ReadsTheShippedOriginalSettings) {
  const DeepSpeedConfig config =
      read_deepspeed_config(test::source_dir() / "configs/ds/original.json");
  EXPECT_EQ(config.train_micro_batch_size_per_gpu, 2);
  EXPECT_EQ(config.gradient_accumulation_steps, 2);
  ASSERT_TRUE(config.optimizer.has_value());
  EXPECT_EQ(config.optimizer->type(), "AdamW");
  EXPECT_EQ(config.optimizer->keys.at("lr").as_double(), 1e-4);
  EXPECT_EQ(config.optimizer->keys.at("weight_decay").as_double(), 1e-2);
  ASSERT_NE(config.scheduler, nullptr);
  const auto& warmup_lr = dynamic_cast<const WarmupLrOptions&>(*config.scheduler);
  EXPECT_EQ(warmup_lr.type(), "WarmupLR");
  EXPECT_EQ(warmup_lr.min_lr, 1e-7);
  EXPECT_EQ(warmup_lr.warmup.num_steps, 500);
  EXPECT_EQ(warmup_lr.warmup.type, "linear");
  ASSERT_TRUE(config.fp16.has_value());
  EXPECT_EQ(config.fp16->enabled, true);
  EXPECT_FALSE(config.gradient_clipping.has_value());
}

TEST(DeepSpeedConfig, ReportsEveryProblemWithItsPathUnknownKeysFirst) {
  const std::string message = input_error_of(
      R"({"fp16": {"enabled": true, "hysterisis": 2}, "gradient_clipping": "big",
          "scheduler": {"type": "WarmupLR", "params": {"warmup_steps": 10}}})");
  // The fp16 section is read by the YAML section's schema, with its wording.
  const size_t unknown = message.find("ds.json: unknown key `fp16.hysterisis`");
  EXPECT_NE(unknown, std::string::npos) << message;
  EXPECT_NE(message.find("did you mean `fp16.hysteresis`"), std::string::npos) << message;
  EXPECT_NE(message.find("ds.json: unknown key `scheduler.params.warmup_steps`"), std::string::npos)
      << message;
  const size_t typed = message.find("key `gradient_clipping`: expected a number");
  EXPECT_NE(typed, std::string::npos) << message;
  EXPECT_LT(unknown, typed);
}

TEST(DeepSpeedConfig, Fp16ValuesAreCheckedByTheYamlSectionsSchema) {
  const std::string message =
      input_error_of(R"({"fp16": {"enabled": "yes", "loss_scale_window": 0, "hysteresis": 2}})");
  EXPECT_NE(message.find("ds.json: key `fp16.enabled`: expected"), std::string::npos) << message;
  EXPECT_NE(message.find("ds.json: key `fp16.loss_scale_window`"), std::string::npos) << message;
  EXPECT_EQ(message.find("fp16.hysteresis"), std::string::npos) << message;
  const DeepSpeedConfig config = parse_deepspeed_config(
      R"({"fp16": {"initial_scale_power": 12, "min_loss_scale": 0.5}})", "ok.json");
  ASSERT_TRUE(config.fp16.has_value());
  EXPECT_FALSE(config.fp16->enabled.has_value());
  EXPECT_EQ(config.fp16->loss_scaler_options().initial_scale_power, 12);
  EXPECT_EQ(config.fp16->loss_scaler_options().min_loss_scale, 0.5);
}

TEST(DeepSpeedConfig, BadJsonNamesFileAndLine) {
  const std::string message = input_error_of("{\n  \"fp16\": {\n    \"enabled\": tru\n  }\n}");
  EXPECT_NE(message.find("ds.json:3:"), std::string::npos) << message;
}

TEST(DeepSpeedConfig, AdamMeansDecoupledUnlessAdamWModeIsFalse) {
  EXPECT_EQ(parse_deepspeed_config(R"({"optimizer": {"type": "Adam"}})", "a").optimizer->type(),
            "AdamW");
  EXPECT_EQ(parse_deepspeed_config(
                R"({"optimizer": {"type": "Adam", "params": {"adam_w_mode": false}}})", "b")
                .optimizer->type(),
            "Adam");
  EXPECT_EQ(parse_deepspeed_config(R"({"optimizer": {"type": "adamw"}})", "c").optimizer->type(),
            "AdamW");
  EXPECT_TRUE(parse_deepspeed_config(
                  R"({"optimizer": {"type": "Adam", "params": {"torch_adam": true}}})", "d")
                  .optimizer->torch_adam);
}

// Other types are registered optimizers by torch.optim's name, their params checked by the
// optimizer's own schema.
TEST(DeepSpeedConfig, OptimizerParamsAreCheckedByTheRegisteredOptimizersSchema) {
  const DeepSpeedConfig sgd = parse_deepspeed_config(
      R"({"optimizer": {"type": "SGD", "params": {"lr": 0.01, "momentum": 0.9}}})", "ds.json");
  EXPECT_EQ(sgd.optimizer->type(), "SGD");
  EXPECT_EQ(sgd.optimizer->keys.at("momentum").as_double(), 0.9);
  const std::string message = input_error_of(
      R"({"optimizer": {"type": "AdamW", "params": {"betaz": [0.9, 0.99], "eps": -1,
          "adam_w_mode": 1}}})");
  EXPECT_NE(message.find("ds.json: unknown key `optimizer.params.betaz`"), std::string::npos)
      << message;
  EXPECT_NE(message.find("did you mean `optimizer.params.betas`"), std::string::npos) << message;
  EXPECT_NE(message.find("ds.json: key `optimizer.params.eps`"), std::string::npos) << message;
  EXPECT_NE(message.find("ds.json: key `optimizer.params.adam_w_mode`"), std::string::npos)
      << message;
  // Adam's own keys belong to DeepSpeed's Adam only.
  EXPECT_NE(input_error_of(R"({"optimizer": {"type": "SGD", "params": {"torch_adam": true}}})")
                .find("unknown key `optimizer.params.torch_adam`"),
            std::string::npos);
  const std::string lamb = input_error_of(R"({"optimizer": {"type": "Lamb"}})");
  EXPECT_NE(lamb.find("ds.json: key `optimizer.type`: unknown optimizer type `Lamb`"),
            std::string::npos)
      << lamb;
  EXPECT_NE(lamb.find("Adam, AdamW, SGD"), std::string::npos) << lamb;
}

// The scheduler section is read by the DeepSpeed schedule registry: each type its own keys.
TEST(DeepSpeedConfig, RequiresTotalStepsForDecayingSchedules) {
  for (const std::string type : {"WarmupDecayLR", "WarmupCosineLR"}) {
    const std::string message =
        input_error_of(R"({"scheduler": {"type": ")" + type + R"(", "params": {}}})");
    EXPECT_NE(message.find("missing required key `scheduler.params.total_num_steps`"),
              std::string::npos)
        << message;
  }
  const std::string no_params = input_error_of(R"({"scheduler": {"type": "WarmupCosineLR"}})");
  EXPECT_NE(no_params.find("missing required key `scheduler.params`"), std::string::npos)
      << no_params;
  const std::string unknown = input_error_of(R"({"scheduler": {"type": "OneCycle"}})");
  EXPECT_NE(unknown.find("unknown DeepSpeed scheduler type `OneCycle`"), std::string::npos)
      << unknown;
  EXPECT_NE(unknown.find("WarmupCosineLR, WarmupDecayLR, WarmupLR"), std::string::npos) << unknown;
  // WarmupLR takes no total_num_steps.
  const std::string foreign =
      input_error_of(R"({"scheduler": {"type": "WarmupLR", "params": {"total_num_steps": 10}}})");
  EXPECT_NE(foreign.find("unknown key `scheduler.params.total_num_steps`"), std::string::npos)
      << foreign;
}

TEST(DeepSpeedConfig, ReadsTheZeroStage) {
  EXPECT_EQ(parse_deepspeed_config(R"({"zero_optimization": {"stage": 2}})", "a").zero_stage, 2);
  EXPECT_EQ(parse_deepspeed_config(R"({"zero_optimization": {}})", "b").zero_stage, 0);
  EXPECT_FALSE(parse_deepspeed_config("{}", "c").zero_stage.has_value());
  // DeepSpeed's old boolean form.
  EXPECT_EQ(parse_deepspeed_config(R"({"zero_optimization": true})", "d").zero_stage, 1);
}

TEST(DeepSpeedConfig, RejectsAZeroStageOutsideZeroToThree) {
  for (const std::string stage : {"7", "-1", "\"x\"", "1.5"}) {
    const std::string message =
        input_error_of(R"({"zero_optimization": {"stage": )" + stage + "}}");
    EXPECT_NE(message.find("ds.json: key `zero_optimization.stage`: "), std::string::npos)
        << message;
  }
  EXPECT_NE(input_error_of(R"({"zero_optimization": {"stage": 7}})").find("7 is outside [0, 3]"),
            std::string::npos);
}

TEST(DeepSpeedConfig, RefusesZeroStageThreeNamingWhatIsSupported) {
  const std::string message = input_error_of(R"({"zero_optimization": {"stage": 3}})");
  EXPECT_NE(message.find("ds.json: key `zero_optimization.stage`: 3 shards the parameters "
                         "themselves, which this trainer does not; stages 1 (optimizer state) "
                         "and 2 (optimizer state and gradients) are supported"),
            std::string::npos)
      << message;
}

TEST(DeepSpeedConfig, IgnoresZeroCommunicationTuningButRejectsOffload) {
  const DeepSpeedConfig config = parse_deepspeed_config(
      R"({"zero_optimization": {"stage": 2, "overlap_comm": true, "reduce_bucket_size": 2e8}})",
      "ds.json");
  EXPECT_EQ(config.zero_stage, 2);
  ASSERT_EQ(config.ignored.size(), 2u);
  EXPECT_EQ(config.ignored[0].rfind("zero_optimization.overlap_comm: ", 0), 0u)
      << config.ignored[0];
  const std::string message = input_error_of(
      R"({"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}})");
  EXPECT_NE(message.find("ds.json: unknown key `zero_optimization.offload_optimizer`"),
            std::string::npos)
      << message;
}

BatchSizes batch_of(const std::string& json, int64_t world) {
  return *resolve_batch_sizes(parse_deepspeed_config(json, "ds.json"), world);
}

TEST(DeepSpeedBatchKeys, InfersTheMissingOnesAsDeepSpeed) {
  BatchSizes sizes = batch_of(R"({"train_batch_size": 8, "train_micro_batch_size_per_gpu": 2})", 2);
  EXPECT_EQ(sizes.accumulation_steps, 2);
  sizes = batch_of(R"({"train_batch_size": 8, "gradient_accumulation_steps": 2})", 2);
  EXPECT_EQ(sizes.micro_batch_per_gpu, 2);
  sizes = batch_of(R"({"train_micro_batch_size_per_gpu": 3, "gradient_accumulation_steps": 2})", 2);
  EXPECT_EQ(sizes.train_batch_size, 12);
  sizes = batch_of(R"({"train_batch_size": 6})", 3);
  EXPECT_EQ(sizes.micro_batch_per_gpu, 2);
  EXPECT_EQ(sizes.accumulation_steps, 1);
  sizes = batch_of(R"({"train_micro_batch_size_per_gpu": 4})", 2);
  EXPECT_EQ(sizes.train_batch_size, 8);
  EXPECT_EQ(sizes.accumulation_steps, 1);
  EXPECT_FALSE(resolve_batch_sizes(parse_deepspeed_config("{}", "e"), 1).has_value());
}

TEST(DeepSpeedBatchKeys, RejectsInconsistentKeysForTheWorldSize) {
  const DeepSpeedConfig config = parse_deepspeed_config(
      R"({"train_batch_size": 8, "train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 2})",
      "ds.json");
  EXPECT_EQ(resolve_batch_sizes(config, 2)->train_batch_size, 8);
  EXPECT_THROW(resolve_batch_sizes(config, 1), Error);
  EXPECT_THROW(resolve_batch_sizes(parse_deepspeed_config(R"({"train_batch_size": 5})", "f"), 2),
               Error);
  EXPECT_THROW(
      resolve_batch_sizes(parse_deepspeed_config(R"({"gradient_accumulation_steps": 2})", "g"), 1),
      Error);
}

const char* kYaml = R"(
optimizer:
  type: AdamW
  lr: 2.0e-4
  weight_decay: 1.0e-4
  paramwise_cfg:
    custom_keys:
      img_backbone: {lr_mult: 0.1}
optimizer_config:
  grad_clip: {max_norm: 35, norm_type: 2}
lr_config:
  policy: CosineAnnealing
  warmup: linear
  warmup_iters: 500
  warmup_ratio: 0.3333333333333333
  min_lr_ratio: 1.0e-3
data:
  samples_per_gpu: 1
)";

TEST(TrainingSettings, JsonKeysOverrideAndAbsentKeysKeepTheYaml) {
  const TrainingSettings yaml = training_settings_from_config(parse_yaml(kYaml, "demo.yaml"));
  EXPECT_NE(dynamic_cast<const CosineAnnealingOptions*>(yaml.lr_schedule.get()), nullptr);
  EXPECT_FALSE(yaml.precision.fp16);
  const TrainingSettings resolved = apply_deepspeed_config(
      yaml, read_deepspeed_config(test::source_dir() / "configs/ds/original.json"), 1);
  EXPECT_EQ(resolved.solver.optimizer->lr, 1e-4);
  EXPECT_EQ(resolved.solver.optimizer->weight_decay, 1e-2);
  ASSERT_EQ(resolved.solver.optimizer->custom_keys.size(), 1u);  // lr_mult survives
  EXPECT_EQ(resolved.solver.optimizer->custom_keys[0].lr_mult, 0.1);
  ASSERT_TRUE(resolved.solver.grad_clip.has_value());  // clipping at 35 survives
  EXPECT_EQ(resolved.solver.grad_clip->max_norm, 35.0);
  const auto* schedule = dynamic_cast<const DeepSpeedScheduleOptions*>(resolved.lr_schedule.get());
  ASSERT_NE(schedule, nullptr);
  EXPECT_EQ(schedule->type(), "WarmupLR");
  EXPECT_EQ(resolved.samples_per_gpu, 2);
  EXPECT_EQ(resolved.accumulation_steps, 2);
  EXPECT_TRUE(resolved.precision.fp16);
  // fp16 without scaling keys still gets DeepSpeed's dynamic-scaling defaults.
  EXPECT_EQ(resolved.precision.scaler.initial_scale_power, 16);
  EXPECT_EQ(resolved.precision.scaler.hysteresis, 2);
  bool lr_from_json = false;
  bool clip_from_yaml = false;
  for (const SettingSource& source : resolved.sources) {
    const std::string line = source.line();
    lr_from_json |= line.find("optimizer.lr = 0.0001 <- ") == 0 &&
                    line.find("optimizer.params.lr") != std::string::npos;
    clip_from_yaml |= line.find("grad_clip.max_norm = 35 <- config demo.yaml:") == 0;
  }
  EXPECT_TRUE(lr_from_json);
  EXPECT_TRUE(clip_from_yaml);
}

// The layers in order: the YAML, the DeepSpeed JSON, the command line; each setting names the
// layer that set it last.
TEST(TrainingSettings, TheCommandLineIsTheLastLayer) {
  const TrainingSettings json_off = apply_deepspeed_config(
      training_settings_from_config(parse_yaml(kYaml, "demo.yaml")),
      parse_deepspeed_config(R"({"fp16": {"enabled": false}})", "ds.json"), 1);
  EXPECT_FALSE(json_off.precision.fp16);
  ASSERT_NE(json_off.source_of("fp16"), nullptr);
  EXPECT_EQ(json_off.source_of("fp16")->line(), "fp16 = off <- ds.json fp16.enabled");
  const TrainingSettings flag_on = apply_command_line(json_off, true);
  EXPECT_TRUE(flag_on.precision.fp16);
  EXPECT_EQ(flag_on.source_of("fp16")->line(), "fp16 = on <- command line --use-fp16");
  // Replaced in place: one entry per setting.
  size_t fp16_entries = 0;
  for (const SettingSource& source : flag_on.sources) fp16_entries += source.setting == "fp16";
  EXPECT_EQ(fp16_entries, 1u);
  EXPECT_EQ(apply_command_line(json_off, false).source_of("fp16")->line(),
            "fp16 = off <- ds.json fp16.enabled");
}

// The JSON's optimizer replaces the YAML's type; the keys its params leave out keep the YAML's
// values where the new type takes them, and the log forgets the old type's own settings.
TEST(TrainingSettings, AJsonOptimizerOfAnotherTypeKeepsTheYamlKeysItTakes) {
  const TrainingSettings resolved = apply_deepspeed_config(
      training_settings_from_config(parse_yaml(kYaml, "demo.yaml")),
      parse_deepspeed_config(
          R"({"optimizer": {"type": "SGD", "params": {"lr": 0.01, "momentum": 0.9}}})", "ds.json"),
      1);
  const auto* sgd = dynamic_cast<const SgdOptions*>(resolved.solver.optimizer.get());
  ASSERT_NE(sgd, nullptr);
  EXPECT_EQ(sgd->lr, 0.01);
  EXPECT_EQ(sgd->momentum, 0.9);
  EXPECT_EQ(sgd->weight_decay, 1e-4);
  ASSERT_EQ(sgd->custom_keys.size(), 1u);
  EXPECT_EQ(resolved.source_of("optimizer.type")->line(),
            "optimizer.type = SGD <- ds.json optimizer.type");
  EXPECT_EQ(resolved.source_of("optimizer.momentum")->line(),
            "optimizer.momentum = 0.9 <- ds.json optimizer.params.momentum");
  EXPECT_EQ(resolved.source_of("optimizer.weight_decay")->source.rfind("config demo.yaml:", 0), 0u)
      << resolved.source_of("optimizer.weight_decay")->line();
  EXPECT_EQ(resolved.source_of("optimizer.betas"), nullptr);
  EXPECT_EQ(resolved.source_of("optimizer.eps"), nullptr);

  const TrainingSettings adam = apply_deepspeed_config(
      training_settings_from_config(parse_yaml(kYaml, "demo.yaml")),
      parse_deepspeed_config(R"({"optimizer": {"type": "adam", "params": {"eps": 1e-6}}})",
                             "ds.json"),
      1);
  const auto* options = dynamic_cast<const AdamOptions*>(adam.solver.optimizer.get());
  ASSERT_NE(options, nullptr);
  EXPECT_TRUE(options->decoupled_weight_decay);
  EXPECT_EQ(options->eps, 1e-6);
  EXPECT_EQ(options->lr, 2e-4);
  EXPECT_EQ(adam.source_of("optimizer.type")->line(),
            "optimizer.type = AdamW (DeepSpeed `adam`) <- ds.json optimizer.type");
}

TEST(TrainingSettings, GradientClippingZeroTurnsClippingOff) {
  const TrainingSettings resolved =
      apply_deepspeed_config(training_settings_from_config(parse_yaml(kYaml, "demo.yaml")),
                             parse_deepspeed_config(R"({"gradient_clipping": 0})", "ds.json"), 1);
  EXPECT_FALSE(resolved.solver.grad_clip.has_value());
  EXPECT_NE(dynamic_cast<const CosineAnnealingOptions*>(resolved.lr_schedule.get()), nullptr);
}

}  // namespace
}  // namespace olv2
