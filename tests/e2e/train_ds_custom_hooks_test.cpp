// The hooks of train_ds from its config: an EarlyStoppingHook of `custom_hooks` ends the run, and
// its state is in the checkpoint of the epoch it stopped at; `default_hooks` changes a default
// hook and `log_config.hooks` adds a logger by its type.
#include <gtest/gtest.h>

#include <filesystem>

#include "olv2/engine/checkpoint/training_checkpoint.h"
#include "support/json_log_records.h"
#include "support/run_command.h"
#include "support/synthetic_dataset.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

// Every OLS passes a threshold of -1: the first validation stops a three-epoch run.
TEST(TrainDsCustomHooks, EarlyStoppingEndsTheRunAtTheValidationThatPassesItsThreshold) {
  const std::string root =
      test::synthetic_dataset("best_checkpoint_e2e",
                              "--frames 4 --val-frames 2 --image-scale 0.0625 --seed 5")
          .string();
  const fs::path work_dir = test::scratch_dir("early_stopping");
  const auto run = test::run_app(
      "train_ds", (test::source_dir() / "configs/tests/tiny.yaml").string() + " --work-dir '" +
                      work_dir.string() + "' --cfg-options data_root='" + root + "' meta_root='" +
                      root +
                      "' evaluation.interval=1 runner.max_epochs=3 checkpoint_config.interval=2 "
                      "'custom_hooks=[{type: EarlyStoppingHook, stopping_threshold: -1}]' "
                      "'default_hooks={timer: {priority: 71}}' "
                      "'log_config.hooks=[{type: TextLoggerHook}, {type: TensorboardLoggerHook}]'");
  ASSERT_EQ(run.exit_status, 0) << run.output;
  EXPECT_NE(run.output.find("EvalHook (40), EarlyStoppingHook (40), CheckpointHook (50)"),
            std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("IterTimerHook (71), TextLoggerHook (90), TensorboardLoggerHook (90), "
                            "JsonLoggerHook (90)"),
            std::string::npos)
      << run.output;
  EXPECT_TRUE(fs::is_directory(work_dir / "tf_logs"));
  EXPECT_NE(run.output.find("early stopping after epoch 1: OLS "), std::string::npos) << run.output;
  // Interval 2, but the epoch the run stopped at is saved as the last one is.
  ASSERT_TRUE(fs::exists(work_dir / "epoch_1.pth")) << run.output;
  EXPECT_FALSE(fs::exists(work_dir / "epoch_2.pth"));
  const std::vector<nlohmann::json> validations = test::json_log_records(work_dir, "val");
  ASSERT_EQ(validations.size(), 1u);
  const TrainingCheckpoint checkpoint = read_training_checkpoint(work_dir / "epoch_1.pth");
  EXPECT_EQ(checkpoint.progress.epoch, 1);
  const PthValue* best = checkpoint.hook_msgs.find("early_stopping_best_score");
  ASSERT_NE(best, nullptr);
  EXPECT_NEAR(best->as_float(), validations[0].at("OLS").get<double>(), 1e-4);
}

}  // namespace
}  // namespace olv2
