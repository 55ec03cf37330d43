#include "olv2/engine/settings/auto_scale_lr.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>

#include "olv2/config/config_loader.h"
#include "olv2/solver/param_groups.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

// configs/baseline.yaml: AdamW lr 1e-4, samples_per_gpu 2; baseline_large.yaml: lr 2e-4,
// samples_per_gpu 1, the backbone at lr_mult 0.1.
TrainingSettings settings_of(const std::string& config) {
  return training_settings_from_config(load_config_file(test::source_dir() / "configs" / config));
}
TrainingSettings baseline_settings() { return settings_of("baseline.yaml"); }

AutoScaleLrOptions enabled(int64_t base_batch_size) {
  AutoScaleLrOptions options;
  options.enable = true;
  options.base_batch_size = base_batch_size;
  return options;
}

std::string source_of(const TrainingSettings& settings, const std::string& setting) {
  const SettingSource* source = settings.source_of(setting);
  return source ? source->line() : "";
}

TEST(AutoScaleLr, ScalesTheLrByWorldBatchOverBaseBatch) {
  TrainingSettings settings = baseline_settings();
  ASSERT_DOUBLE_EQ(settings.solver.optimizer->lr, 1e-4);
  const std::vector<std::string> lines = apply_auto_scale_lr(settings, enabled(16), 2);
  // 2 ranks x 2 samples = 4 of the recipe's 16.
  EXPECT_DOUBLE_EQ(settings.solver.optimizer->lr, 1e-4 * 4 / 16);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "Training with 2 GPU(s) with 2 samples per GPU. The total batch size is 4.");
  EXPECT_EQ(lines[1], "LR has been automatically scaled from 0.0001 to 2.5e-05");
  EXPECT_NE(source_of(settings, "optimizer.lr").find("2.5e-05 <- auto_scale_lr: 0.0001 x 4 / 16"),
            std::string::npos)
      << source_of(settings, "optimizer.lr");
}

TEST(AutoScaleLr, EveryLrMultGroupFollows) {
  TrainingSettings settings = settings_of("baseline_large.yaml");
  apply_auto_scale_lr(settings, enabled(8), 2);  // 2 x 1 of 8: a quarter
  torch::OrderedDict<std::string, at::Tensor> named;
  named.insert("img_backbone.conv1.weight", torch::zeros({2}, torch::requires_grad()));
  named.insert("lc_head.fc_cls.weight", torch::zeros({2}, torch::requires_grad()));
  const std::vector<ParamGroup> groups =
      build_param_groups(named, settings.solver.param_group_rules());
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].custom_key, "img_backbone");
  EXPECT_DOUBLE_EQ(groups[0].lr_mult, 0.1);
  EXPECT_DOUBLE_EQ(groups[0].lr, 0.5e-4 * 0.1);
  EXPECT_DOUBLE_EQ(groups[1].lr, 0.5e-4);
}

TEST(AutoScaleLr, DeepSpeedScheduleLrsScaleToo) {
  TrainingSettings settings = baseline_settings();
  auto schedule = std::make_shared<WarmupDecayLrOptions>();
  schedule->min_lr = 1e-5;
  schedule->max_lr = 2e-4;
  schedule->total_num_steps = 100;
  settings.lr_schedule = schedule;
  const std::vector<std::string> lines =
      apply_auto_scale_lr(settings, enabled(2), 4);  // 4 x 2 of 2
  const auto& scaled = dynamic_cast<const WarmupDecayLrOptions&>(*settings.lr_schedule);
  EXPECT_DOUBLE_EQ(scaled.min_lr, 4e-5);
  EXPECT_DOUBLE_EQ(scaled.max_lr, 8e-4);
  EXPECT_EQ(scaled.total_num_steps, 100);
  EXPECT_NE(lines.back().find("DeepSpeed WarmupDecayLR lrs scaled by 4 as well"), std::string::npos)
      << lines.back();
  EXPECT_DOUBLE_EQ(settings.solver.optimizer->lr, 4e-4);
}

TEST(AutoScaleLr, DisabledOrTheBaseBatchChangesNothing) {
  TrainingSettings settings = baseline_settings();
  AutoScaleLrOptions disabled = enabled(16);
  disabled.enable = false;
  EXPECT_EQ(
      apply_auto_scale_lr(settings, disabled, 8),
      (std::vector<std::string>{"Automatic scaling of learning rate (LR) has been disabled."}));
  const std::vector<std::string> lines = apply_auto_scale_lr(settings, enabled(16), 8);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1],
            "The batch size match the base batch size: 16, will not scaling the LR (0.0001).");
  EXPECT_DOUBLE_EQ(settings.solver.optimizer->lr, 1e-4);
}

}  // namespace
}  // namespace olv2
