// The work dir's checkpoint files: mmcv's retention rule, latest.pth, atomic writes.
#include "olv2/engine/checkpoint/checkpoint_keeper.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <torch/torch.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "olv2/util/error.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

TrainingCheckpoint checkpoint_of_epoch(int64_t epoch, int64_t size = 16) {
  TrainingCheckpoint checkpoint;
  checkpoint.state_dict = {{"layer.weight", torch::full({size}, static_cast<float>(epoch))}};
  checkpoint.optimizer = PthValue::dict();
  checkpoint.scheduler.policy = "CosineAnnealing";
  checkpoint.progress.epoch = epoch;
  return checkpoint;
}

void save_epochs(CheckpointKeeper& keeper, int64_t first, int64_t last, int64_t interval = 1) {
  for (int64_t epoch = first; epoch <= last; epoch += interval)
    keeper.save("epoch", epoch, interval, checkpoint_of_epoch(epoch));
}

TEST(CheckpointKeeper, PointsLatestAtTheNewestAndKeepsAtMostN) {
  const fs::path dir = test::scratch_dir("keeper");
  CheckpointKeeper keeper(dir, 2);
  EXPECT_TRUE(keeper.latest().empty());
  save_epochs(keeper, 1, 4);
  EXPECT_FALSE(fs::exists(dir / "epoch_1.pth"));
  EXPECT_FALSE(fs::exists(dir / "epoch_2.pth"));
  EXPECT_TRUE(fs::exists(dir / "epoch_3.pth"));
  EXPECT_EQ(read_training_checkpoint(keeper.latest()).progress.epoch, 4);
}

// The defect this rule fixes: a fresh run in a work dir that holds a newer checkpoint of an
// earlier run deleted the file it had just written, and latest.pth pointed at nothing.
TEST(CheckpointKeeper, NeverRemovesTheFileJustWrittenNorANewerOne) {
  const fs::path dir = test::scratch_dir("keeper_fresh_run");
  {
    CheckpointKeeper earlier(dir, 1);
    save_epochs(earlier, 1, 2);
  }
  ASSERT_FALSE(fs::exists(dir / "epoch_1.pth"));
  CheckpointKeeper fresh(dir, 1);
  fresh.save("epoch", 1, 1, checkpoint_of_epoch(1));
  EXPECT_TRUE(fs::exists(dir / "epoch_1.pth"));
  EXPECT_TRUE(fs::exists(dir / "epoch_2.pth"));
  EXPECT_EQ(fs::read_symlink(dir / "latest.pth"), "epoch_1.pth");
  EXPECT_EQ(read_training_checkpoint(fresh.latest()).progress.epoch, 1);
}

TEST(CheckpointKeeper, RemovesByIntervalStepsDownToTheFirstGap) {
  const fs::path dir = test::scratch_dir("keeper_interval");
  CheckpointKeeper keeper(dir, 2);
  save_epochs(keeper, 2, 10, 2);
  for (int64_t epoch : {2, 4, 6})
    EXPECT_FALSE(fs::exists(dir / ("epoch_" + std::to_string(epoch) + ".pth")));
  EXPECT_TRUE(fs::exists(dir / "epoch_8.pth"));
  EXPECT_TRUE(fs::exists(dir / "epoch_10.pth"));
}

TEST(CheckpointKeeper, SeriesArePrunedSeparately) {
  const fs::path dir = test::scratch_dir("keeper_series");
  CheckpointKeeper keeper(dir, 1);
  keeper.save("iter", 5, 5, checkpoint_of_epoch(0));
  keeper.save("epoch", 1, 1, checkpoint_of_epoch(1));
  keeper.save("iter", 10, 5, checkpoint_of_epoch(1));
  EXPECT_FALSE(fs::exists(dir / "iter_5.pth"));
  EXPECT_TRUE(fs::exists(dir / "iter_10.pth"));
  EXPECT_TRUE(fs::exists(dir / "epoch_1.pth"));
}

TEST(CheckpointKeeper, ZeroOrNegativeMaxKeepKeepsAll) {
  for (int64_t max_keep : {0, -1, -5}) {
    const fs::path dir = test::scratch_dir("keeper_all_" + std::to_string(-max_keep));
    CheckpointKeeper keeper(dir, max_keep);
    save_epochs(keeper, 1, 4);
    for (int64_t epoch = 1; epoch <= 4; ++epoch)
      EXPECT_TRUE(fs::exists(dir / ("epoch_" + std::to_string(epoch) + ".pth"))) << max_keep;
  }
}

TEST(CheckpointKeeper, ADanglingLatestIsAnInputErrorNamingIt) {
  const fs::path dir = test::scratch_dir("keeper_dangling");
  CheckpointKeeper keeper(dir, -1);
  save_epochs(keeper, 1, 1);
  fs::remove(dir / "epoch_1.pth");
  try {
    (void)keeper.latest();
    FAIL() << "expected an input error";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), ExitStatus::kBadInput);
    const std::string message = error.what();
    EXPECT_NE(message.find("latest.pth points at epoch_1.pth"), std::string::npos) << message;
  }
}

// A process killed while writing a checkpoint leaves the previous one whole.
TEST(CheckpointKeeper, SigkillDuringAWriteLeavesThePreviousCheckpointLoadable) {
  const fs::path dir = test::scratch_dir("sigkill");
  CheckpointKeeper(dir, -1).save("epoch", 1, 1, checkpoint_of_epoch(1));
  for (int attempt = 0; attempt < 5; ++attempt) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      CheckpointKeeper keeper(dir, -1);
      for (;;) keeper.save("epoch", 1, 1, checkpoint_of_epoch(2, 4 << 20));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(30 + 37 * attempt));
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    const TrainingCheckpoint survivor = read_training_checkpoint(dir / "latest.pth");
    EXPECT_TRUE(survivor.progress.epoch == 1 || survivor.progress.epoch == 2);
  }
}

}  // namespace
}  // namespace olv2
