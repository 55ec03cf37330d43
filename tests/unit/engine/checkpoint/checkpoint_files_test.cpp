#include <gtest/gtest.h>
#include <torch/torch.h>

#include "olv2/engine/checkpoint/optimizer_state.h"
#include "olv2/engine/checkpoint/training_checkpoint.h"
#include "olv2/util/error.h"
#include "olv2/util/pth/pth_file.h"
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
  checkpoint.progress = {epoch, 3 * epoch, 0, 0};
  checkpoint.identity = {5, 1, 2, 3};
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
  EXPECT_EQ(read.identity.seed, 5u);
  EXPECT_TRUE(read.has_batch_identity);
  EXPECT_EQ(read.identity.world_size, 1);
  EXPECT_EQ(read.identity.samples_per_gpu, 2);
  EXPECT_EQ(read.identity.accumulation_steps, 3);
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
