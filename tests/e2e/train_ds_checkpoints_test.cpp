// Checkpoint files across runs in one work dir, as a user meets them.
#include <gtest/gtest.h>

#include <filesystem>

#include "olv2/engine/checkpoint/training_checkpoint.h"
#include "support/run_command.h"
#include "support/synthetic_dataset.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

std::string retention_run_args(const fs::path& work_dir, const std::string& extra) {
  const std::string root =
      test::synthetic_dataset("checkpoints_e2e",
                              "--frames 4 --val-frames 1 --image-scale 0.0625 --seed 4")
          .string();
  return (test::source_dir() / "configs/tests/tiny.yaml").string() + " --work-dir '" +
         work_dir.string() + "' --no-validate --cfg-options data_root='" + root + "' meta_root='" +
         root + "' " + extra;
}

// The reported defect, exactly: 2 epochs with interval 1 and max_keep_ckpts 1, then a fresh
// 1-epoch run in the same work dir. It used to delete epoch_1.pth right after writing it.
TEST(TrainDsCheckpoints, AFreshRunKeepsTheCheckpointItJustWrote) {
  const fs::path work_dir = test::scratch_dir("retention");
  const std::string keep_one = "checkpoint_config.interval=1 checkpoint_config.max_keep_ckpts=1";
  const auto first =
      test::run_app("train_ds", retention_run_args(work_dir, keep_one + " runner.max_epochs=2"));
  ASSERT_EQ(first.exit_status, 0) << first.output;
  EXPECT_FALSE(fs::exists(work_dir / "epoch_1.pth"));
  EXPECT_TRUE(fs::exists(work_dir / "epoch_2.pth"));

  const auto second =
      test::run_app("train_ds", retention_run_args(work_dir, keep_one + " runner.max_epochs=1"));
  ASSERT_EQ(second.exit_status, 0) << second.output;
  ASSERT_TRUE(fs::exists(work_dir / "epoch_1.pth"));
  EXPECT_EQ(fs::read_symlink(work_dir / "latest.pth"), "epoch_1.pth");
  EXPECT_EQ(read_training_checkpoint(work_dir / "latest.pth").progress.epoch, 1);
}

TEST(TrainDsCheckpoints, ResumeAutoWithADanglingLatestNamesIt) {
  const fs::path work_dir = test::scratch_dir("dangling");
  fs::create_directories(work_dir);
  fs::create_symlink("epoch_3.pth", work_dir / "latest.pth");
  const auto result = test::run_app("train_ds", retention_run_args(work_dir, "--resume-from auto"));
  EXPECT_EQ(result.exit_status, 2) << result.output;
  EXPECT_NE(result.output.find("latest.pth points at epoch_3.pth, which does not exist"),
            std::string::npos)
      << result.output;
}

}  // namespace
}  // namespace olv2
