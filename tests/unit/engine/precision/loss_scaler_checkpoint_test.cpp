// The loss scaler's state in a training checkpoint: tagged with its kind, so a
// run resumes only with the scaler that wrote it; older files hold
// DynamicLossScaler state.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "olv2/engine/checkpoint/training_checkpoint.h"
#include "olv2/engine/precision/dynamic_loss_scaler.h"
#include "olv2/engine/precision/fp16_optimizer_loss_scaler.h"
#include "olv2/engine/precision/loss_scaler.h"
#include "olv2/util/error.h"
#include "olv2/util/pth/pth_file.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

TrainingCheckpoint checkpoint_with(const LossScalerState& scaler) {
  TrainingCheckpoint checkpoint;
  checkpoint.state_dict = {{"layer.weight", torch::ones({4})}};
  checkpoint.optimizer = PthValue::dict();
  checkpoint.scheduler.policy = "WarmupLR";
  checkpoint.loss_scaler = scaler;
  return checkpoint;
}

TEST(LossScalerCheckpoint, Fp16OptimizerStateRoundTripsAndContinues) {
  Fp16OptimizerLossScaler first(LossScalerOptions{});
  for (const bool overflow : {true, false, true, false, false}) first.update(overflow);
  const fs::path path = test::scratch_dir("fp16_optimizer_state") / "c.pth";
  save_training_checkpoint(path, checkpoint_with(first.state()));

  const TrainingCheckpoint read = read_training_checkpoint(path);
  ASSERT_TRUE(read.loss_scaler.has_value());
  EXPECT_EQ(read.loss_scaler->kind, LossScalerKind::kFp16Optimizer);
  EXPECT_EQ(read.loss_scaler->scale, 16384.0);
  EXPECT_EQ(read.loss_scaler->cur_iter, 5);
  EXPECT_EQ(read.loss_scaler->last_overflow_iter, 2);
  EXPECT_EQ(read.loss_scaler->skipped_steps, 2);
  Fp16OptimizerLossScaler resumed(LossScalerOptions{});
  resumed.load_state(*read.loss_scaler);
  for (int step = 5; step < 1010; ++step) {
    first.update(false);
    resumed.update(false);
  }
  EXPECT_EQ(resumed.scale(), 32768.0);
  EXPECT_EQ(resumed.scale(), first.scale());
}

TEST(LossScalerCheckpoint, ResumingWithTheOtherKindIsAnInputError) {
  const fs::path path = test::scratch_dir("kind_mismatch") / "c.pth";
  save_training_checkpoint(path, checkpoint_with(Fp16OptimizerLossScaler({}).state()));
  const TrainingCheckpoint read = read_training_checkpoint(path);
  DynamicLossScaler scaler(LossScalerOptions{});
  try {
    scaler.load_state(*read.loss_scaler);
    FAIL() << "DynamicLossScaler accepted FP16_Optimizer state";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), ExitStatus::kBadInput);
  }
}

TEST(LossScalerCheckpoint, StateWithoutAKindIsDynamicLossScalers) {
  const fs::path path = test::scratch_dir("untagged") / "c.pth";
  save_training_checkpoint(path, checkpoint_with(LossScalerState{1024.0, 7, 3, 2, 1}));
  PthValue root = read_pth(path);
  PthValue untagged = PthValue::dict();
  for (const auto& [key, value] : root.at("loss_scaler").dict_items()) {
    if (key.to_string() != "kind") untagged.set(key, value);
  }
  root.set("loss_scaler", untagged);
  write_pth(path, root);

  const TrainingCheckpoint read = read_training_checkpoint(path);
  ASSERT_TRUE(read.loss_scaler.has_value());
  EXPECT_EQ(read.loss_scaler->kind, LossScalerKind::kDynamicLossScaler);
  EXPECT_EQ(read.loss_scaler->cur_hysteresis, 2);
  DynamicLossScaler scaler(LossScalerOptions{});
  scaler.load_state(*read.loss_scaler);
  EXPECT_EQ(scaler.scale(), 1024.0);
}

TEST(LossScalerCheckpoint, AnUnknownKindNamesTheFileAndKey) {
  const fs::path path = test::scratch_dir("unknown_kind") / "c.pth";
  save_training_checkpoint(path, checkpoint_with(LossScalerState{}));
  PthValue root = read_pth(path);
  PthValue scaler = PthValue::dict();
  for (const auto& [key, value] : root.at("loss_scaler").dict_items()) scaler.set(key, value);
  scaler.set("kind", PthValue::from_string("GradScaler"));
  root.set("loss_scaler", scaler);
  write_pth(path, root);
  try {
    read_training_checkpoint(path);
    FAIL() << "accepted loss_scaler.kind GradScaler";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_EQ(error.status(), ExitStatus::kBadInput);
    EXPECT_NE(message.find(path.string()), std::string::npos) << message;
    EXPECT_NE(message.find("loss_scaler.kind is `GradScaler`, expected DynamicLossScaler or "
                           "FP16_Optimizer"),
              std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace olv2
