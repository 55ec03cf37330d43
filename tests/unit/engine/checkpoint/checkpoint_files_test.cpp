#include <gtest/gtest.h>
#include <torch/torch.h>

#include "olv2/engine/checkpoint/optimizer_state.h"
#include "olv2/engine/checkpoint/training_checkpoint.h"
#include "olv2/solver/adam.h"
#include "olv2/solver/sgd.h"
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

// Two param groups, three steps of `options`' optimizer; its state written in PyTorch's layout,
// read into a fresh optimizer and written again equals what was written.
void expect_state_round_trips(const OptimizerOptions& options,
                              const std::vector<std::string>& tensor_names, bool has_step) {
  torch::manual_seed(0);
  auto a = torch::randn({2, 3}, torch::requires_grad());
  auto b = torch::randn({4}, torch::requires_grad());
  const auto groups = [&] {
    ParamGroup first;
    first.params = {a};
    first.lr = 1e-3;
    ParamGroup second;
    second.params = {b};
    second.lr = 1e-4;
    return std::vector<ParamGroup>{first, second};
  };
  const std::unique_ptr<torch::optim::Optimizer> optimizer = options.build(groups());
  for (int step = 0; step < 3; ++step) {
    optimizer->zero_grad();
    (a.pow(2).sum() + b.sin().sum()).backward();
    optimizer->step();
  }
  const PthValue saved = optimizer_state_to_pth(*optimizer, options);
  EXPECT_EQ(saved.at("param_groups").items()[1].at("params").items()[0].as_int(), 1);
  EXPECT_DOUBLE_EQ(saved.at("param_groups").items()[1].at("lr").as_float(), 1e-4);
  const PthValue& first = saved.at("state").at(int64_t{0});
  EXPECT_EQ(first.find("step") != nullptr, has_step);
  if (has_step) {
    EXPECT_EQ(first.at("step").as_tensor().item<double>(), 3.0);
  }
  ASSERT_EQ(first.dict_items().size(), tensor_names.size() + (has_step ? 1 : 0));

  const std::unique_ptr<torch::optim::Optimizer> restored = options.build(groups());
  optimizer_state_from_pth(*restored, options, parse_pth(serialize_pth(saved)));
  const PthValue again = optimizer_state_to_pth(*restored, options);
  for (int64_t index : {0, 1}) {
    for (const std::string& key : tensor_names) {
      EXPECT_TRUE(again.at("state").at(index).at(key).as_tensor().equal(
          saved.at("state").at(index).at(key).as_tensor()))
          << key;
    }
  }
}

TEST(OptimizerState, AdamWStateRoundTripsInPythonLayout) {
  expect_state_round_trips(AdamOptions{}, {"exp_avg", "exp_avg_sq"}, true);
}

TEST(OptimizerState, SgdStateRoundTripsInPythonLayout) {
  SgdOptions options;
  options.momentum = 0.9;
  expect_state_round_trips(options, {"momentum_buffer"}, false);
}

TEST(OptimizerState, AStateOfAnotherOptimizerTypeIsNamed) {
  auto weight = torch::ones({3}, torch::requires_grad());
  ParamGroup group;
  group.params = {weight};
  group.lr = 0.1;
  const AdamOptions adam;
  const std::unique_ptr<torch::optim::Optimizer> adam_optimizer = adam.build({group});
  weight.sum().backward();
  adam_optimizer->step();
  const PthValue adam_state = optimizer_state_to_pth(*adam_optimizer, adam);
  SgdOptions sgd;
  sgd.momentum = 0.9;
  const std::unique_ptr<torch::optim::Optimizer> sgd_optimizer = sgd.build({group});
  try {
    optimizer_state_from_pth(*sgd_optimizer, sgd, adam_state);
    FAIL() << "an Adam state was taken by SGD";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), ExitStatus::kBadInput);
    EXPECT_NE(std::string(error.what()).find("optimizer state of parameter 0"), std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("SGD"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace olv2
