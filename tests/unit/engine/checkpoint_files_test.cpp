#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <torch/torch.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "olv2/engine/checkpoint_keeper.h"
#include "olv2/engine/optimizer_state.h"
#include "olv2/engine/training_checkpoint.h"
#include "olv2/util/error.h"
#include "olv2/util/pth_file.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

TrainingCheckpoint small_checkpoint(int64_t epoch, int64_t size = 16) {
  TrainingCheckpoint checkpoint;
  checkpoint.state_dict = {{"layer.weight", torch::full({size}, static_cast<float>(epoch))},
                           {"layer.num_batches_tracked", torch::tensor(epoch)}};
  checkpoint.optimizer = PthValue::dict();
  checkpoint.scheduler.policy = "CosineAnnealing";
  checkpoint.scheduler.epoch = epoch;
  checkpoint.scheduler.iteration = 3 * epoch;
  checkpoint.scheduler.base_lrs = {1e-4, 2e-5};
  checkpoint.loss_scaler = LossScalerState{1024.0, 7, 3, 2, 1};
  checkpoint.progress = {epoch, 3 * epoch, 0};
  checkpoint.seed = 5;
  checkpoint.config_text = "runner: {max_epochs: 2}\n";
  return checkpoint;
}

TEST(TrainingCheckpoint, RoundTripsEveryPart) {
  const fs::path path = test::scratch_dir("roundtrip") / "c.pth";
  save_training_checkpoint(path, small_checkpoint(2));
  const TrainingCheckpoint read = read_training_checkpoint(path);
  ASSERT_EQ(read.state_dict.size(), 2u);
  EXPECT_EQ(read.state_dict[0].first, "layer.weight");
  EXPECT_TRUE(read.state_dict[0].second.equal(torch::full({16}, 2.0f)));
  EXPECT_EQ(read.state_dict[1].second.scalar_type(), torch::kLong);
  EXPECT_EQ(read.scheduler.iteration, 6);
  EXPECT_EQ(read.scheduler.base_lrs, (std::vector<double>{1e-4, 2e-5}));
  ASSERT_TRUE(read.loss_scaler.has_value());
  EXPECT_EQ(read.loss_scaler->scale, 1024.0);
  EXPECT_EQ(read.loss_scaler->cur_hysteresis, 2);
  EXPECT_EQ(read.progress.epoch, 2);
  EXPECT_EQ(read.progress.iteration, 6);
  EXPECT_EQ(read.seed, 5u);
  EXPECT_EQ(read.config_text, "runner: {max_epochs: 2}\n");
}

TEST(TrainingCheckpoint, WeightsComeFromOursMmcvsOrAPlainStateDict) {
  const fs::path dir = test::scratch_dir("weights");
  save_training_checkpoint(dir / "ours.pth", small_checkpoint(1));
  EXPECT_EQ(read_checkpoint_weights(dir / "ours.pth").size(), 2u);
  PthValue plain = PthValue::dict({}, true);
  plain.set("module.conv.weight", PthValue::tensor(torch::ones({2})));
  write_pth(dir / "plain.pth", plain);
  const NamedTensors tensors = read_checkpoint_weights(dir / "plain.pth");
  ASSERT_EQ(tensors.size(), 1u);
  EXPECT_EQ(tensors[0].first, "conv.weight");
  EXPECT_THROW(read_training_checkpoint(dir / "plain.pth"), Error);
}

TEST(CheckpointKeeper, PointsLatestAtTheNewestAndKeepsAtMostN) {
  const fs::path dir = test::scratch_dir("keeper");
  CheckpointKeeper keeper(dir, 2);
  EXPECT_TRUE(keeper.latest().empty());
  for (int64_t epoch = 1; epoch <= 4; ++epoch)
    keeper.save("epoch_" + std::to_string(epoch) + ".pth", small_checkpoint(epoch));
  EXPECT_FALSE(fs::exists(dir / "epoch_1.pth"));
  EXPECT_FALSE(fs::exists(dir / "epoch_2.pth"));
  EXPECT_TRUE(fs::exists(dir / "epoch_3.pth"));
  EXPECT_EQ(read_training_checkpoint(keeper.latest()).progress.epoch, 4);
}

// A process killed while writing a checkpoint leaves the previous one whole.
TEST(CheckpointKeeper, SigkillDuringAWriteLeavesThePreviousCheckpointLoadable) {
  const fs::path dir = test::scratch_dir("sigkill");
  CheckpointKeeper(dir, -1).save("epoch_1.pth", small_checkpoint(1));
  for (int attempt = 0; attempt < 5; ++attempt) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      CheckpointKeeper keeper(dir, -1);
      for (;;) keeper.save("epoch_1.pth", small_checkpoint(2, 4 << 20));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(30 + 37 * attempt));
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    const TrainingCheckpoint survivor = read_training_checkpoint(dir / "latest.pth");
    EXPECT_TRUE(survivor.progress.epoch == 1 || survivor.progress.epoch == 2);
  }
}

TEST(OptimizerState, AdamWStateRoundTripsInPythonLayout) {
  torch::manual_seed(0);
  auto a = torch::randn({3, 2}, torch::requires_grad());
  auto b = torch::randn({4}, torch::requires_grad());
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<at::Tensor>{a},
                      std::make_unique<torch::optim::AdamWOptions>(1e-3));
  groups.emplace_back(std::vector<at::Tensor>{b},
                      std::make_unique<torch::optim::AdamWOptions>(1e-4));
  torch::optim::AdamW optimizer(groups);
  for (int step = 0; step < 3; ++step) {
    optimizer.zero_grad();
    (a.pow(2).sum() + b.sin().sum()).backward();
    optimizer.step();
  }
  const PthValue saved = adam_state_to_pth(optimizer);
  EXPECT_EQ(saved.at("param_groups").items()[1].at("params").items()[0].as_int(), 1);
  EXPECT_EQ(saved.at("state").at(int64_t{0}).at("step").as_tensor().item<double>(), 3.0);

  torch::optim::AdamW restored(std::vector<torch::optim::OptimizerParamGroup>{
      torch::optim::OptimizerParamGroup({a}, std::make_unique<torch::optim::AdamWOptions>(1e-3)),
      torch::optim::OptimizerParamGroup({b}, std::make_unique<torch::optim::AdamWOptions>(1e-4))});
  adam_state_from_pth(restored, parse_pth(serialize_pth(saved)));
  const PthValue again = adam_state_to_pth(restored);
  for (int64_t index : {0, 1}) {
    for (const char* key : {"exp_avg", "exp_avg_sq"}) {
      EXPECT_TRUE(again.at("state").at(index).at(key).as_tensor().equal(
          saved.at("state").at(index).at(key).as_tensor()));
    }
  }
}

}  // namespace
}  // namespace olv2
