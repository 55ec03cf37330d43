// A training run's hooks from its config: mmcv's default hooks from their sections with mmcv's
// priorities, `default_hooks` changing, dropping and adding as mmengine's, the loggers of
// `log_config.hooks` by type, `custom_hooks` after them, each built for its rank and run.
#include "olv2/engine/hooks/training_hooks.h"

#include <gtest/gtest.h>

#include "olv2/config/config_loader.h"
#include "olv2/engine/hooks/hook_registry.h"
#include "olv2/engine/hooks/checkpoint_hook.h"
#include "olv2/engine/hooks/early_stopping_hook.h"
#include "olv2/engine/hooks/iter_timer_hook.h"
#include "olv2/engine/logging/log_options.h"
#include "olv2/util/error.h"
#include "support/input_error.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

std::vector<ConfiguredHook> hooks_of(const std::string& yaml) {
  ConfigNode root = parse_yaml(yaml, "test.yaml");
  root.assign_paths();
  validate_config(root, Schema::map()
                            .optional("checkpoint_config", CheckpointOptions::schema())
                            .optional("log_config", LogOptions::schema())
                            .optional("default_hooks", default_hooks_schema())
                            .optional("custom_hooks", custom_hooks_schema()));
  return training_hooks_from_config(root);
}

std::vector<std::string> types_of(const std::vector<ConfiguredHook>& hooks) {
  std::vector<std::string> types;
  for (const ConfiguredHook& hook : hooks) types.push_back(hook.type);
  return types;
}

TEST(TrainingHooks, TheDefaultsAreMmcvsHooksFromTheirSectionsAtMmcvsPriorities) {
  const std::vector<ConfiguredHook> hooks = hooks_of(
      "checkpoint_config: {interval: 2, max_keep_ckpts: 3}\n"
      "log_config: {interval: 5, hooks: [{type: TextLoggerHook}, "
      "{type: TensorboardLoggerHook}]}\n");
  EXPECT_EQ(types_of(hooks),
            (std::vector<std::string>{"LrUpdaterHook", "OptimizerHook", "EvalHook",
                                      "CheckpointHook", "IterTimerHook", "TextLoggerHook",
                                      "TensorboardLoggerHook", "JsonLoggerHook"}));
  std::vector<int> priorities;
  for (const ConfiguredHook& hook : hooks) priorities.push_back(hook.options->priority);
  EXPECT_EQ(priorities, (std::vector<int>{10, 40, 40, 50, 70, 90, 90, 90}));
  const auto& checkpoint = dynamic_cast<const CheckpointHookOptions&>(*hooks[3].options);
  EXPECT_EQ(checkpoint.checkpoint.interval, 2);
  EXPECT_EQ(checkpoint.checkpoint.max_keep, 3);
  EXPECT_EQ(dynamic_cast<const IterTimerHookOptions&>(*hooks[4].options).interval, 5);
  // Without `log_config.hooks`, the text logger alone.
  const std::vector<std::string> bare = types_of(hooks_of("{}"));
  EXPECT_NE(std::find(bare.begin(), bare.end(), "TextLoggerHook"), bare.end());
  EXPECT_EQ(std::find(bare.begin(), bare.end(), "TensorboardLoggerHook"), bare.end());
}

TEST(TrainingHooks, DefaultHooksChangeDropAndAddAsMmengine) {
  const std::vector<ConfiguredHook> hooks = hooks_of(
      "checkpoint_config: {interval: 2}\n"
      "default_hooks:\n"
      "  checkpoint: {max_keep_ckpts: 1, priority: LOW}\n"
      "  json_logger: null\n"
      "  timer: {type: EarlyStoppingHook, patience: 4}\n"
      "  patience: {type: EarlyStoppingHook, patience: 2}\n"
      "custom_hooks: [{type: EarlyStoppingHook, priority: 12}]\n");
  EXPECT_EQ(types_of(hooks),
            (std::vector<std::string>{"LrUpdaterHook", "OptimizerHook", "EvalHook",
                                      "CheckpointHook", "EarlyStoppingHook", "TextLoggerHook",
                                      "EarlyStoppingHook", "EarlyStoppingHook"}));
  // Laid over `checkpoint_config`: its interval stays.
  const auto& checkpoint = dynamic_cast<const CheckpointHookOptions&>(*hooks[3].options);
  EXPECT_EQ(checkpoint.checkpoint.interval, 2);
  EXPECT_EQ(checkpoint.checkpoint.max_keep, 1);
  EXPECT_EQ(checkpoint.priority, HookPriority::kLow);
  // Another type replaces the section, at that type's default priority.
  EXPECT_EQ(dynamic_cast<const EarlyStoppingOptions&>(*hooks[4].options).patience, 4);
  EXPECT_EQ(hooks[4].options->priority, HookPriority::kAboveNormal);
  EXPECT_EQ(dynamic_cast<const EarlyStoppingOptions&>(*hooks[6].options).patience, 2);
  EXPECT_EQ(hooks[7].options->priority, 12);
}

TEST(TrainingHooks, AnEntryThatFitsNoHookIsNamed) {
  const std::string unknown =
      test::input_error_of([] { hooks_of("default_hooks: {chekpoint: {interval: 2}}\n"); });
  EXPECT_NE(unknown.find("test.yaml:1:"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("no default hook `chekpoint` (did you mean `checkpoint`?)"),
            std::string::npos)
      << unknown;
  const std::string key =
      test::input_error_of([] { hooks_of("default_hooks: {timer: {intervall: 2}}\n"); });
  EXPECT_NE(key.find("unknown key `default_hooks.timer.intervall`"), std::string::npos) << key;
  const std::string logger = test::input_error_of(
      [] { hooks_of("log_config: {interval: 1, hooks: [{type: WandbLoggerHook}]}\n"); });
  EXPECT_NE(logger.find("unknown hook type `WandbLoggerHook`"), std::string::npos) << logger;
  EXPECT_NE(logger.find("TensorboardLoggerHook"), std::string::npos) << logger;
}

TEST(TrainingHooks, CustomHooksReadTypePriorityAndOptions) {
  const std::vector<ConfiguredHook> hooks = hooks_of(
      "custom_hooks:\n"
      "  - {type: EarlyStoppingHook, monitor: DET_l, patience: 2, min_delta: 0.01}\n"
      "  - {type: EarlyStoppingHook, priority: VERY_LOW}\n");
  ASSERT_GE(hooks.size(), 2u);
  const ConfiguredHook& first = hooks[hooks.size() - 2];
  EXPECT_EQ(first.type, "EarlyStoppingHook");
  const auto& options = dynamic_cast<const EarlyStoppingOptions&>(*first.options);
  EXPECT_EQ(options.priority, HookPriority::kAboveNormal);
  EXPECT_EQ(options.monitor, "DET_l");
  EXPECT_EQ(options.patience, 2);
  EXPECT_EQ(options.min_delta, 0.01);
  EXPECT_EQ(hooks.back().options->priority, HookPriority::kVeryLow);
}

// The loggers write on rank 0 only; validation needs validation data.
TEST(TrainingHooks, EachIsBuiltForItsRankAndRun) {
  HookSite site;
  site.rank = 1;
  site.work_dir = test::scratch_dir("hook_site");
  std::vector<std::string> built;
  for (const ConfiguredHook& hook : hooks_of("{}")) {
    if (hook.options->build(site) != nullptr) built.push_back(hook.type);
  }
  EXPECT_EQ(built, (std::vector<std::string>{"LrUpdaterHook", "OptimizerHook", "CheckpointHook",
                                             "IterTimerHook"}));
}

}  // namespace
}  // namespace olv2
