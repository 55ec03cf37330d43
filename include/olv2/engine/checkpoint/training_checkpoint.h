#pragma once
// The training checkpoint in mmcv's layout: what it holds, writing it, reading it back, and reading
// the weights of any checkpoint.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "olv2/engine/precision/loss_scaler.h"
#include "olv2/solver/lr_scheduler.h"
#include "olv2/util/pth/pth_value.h"
#include "olv2/util/state_dict.h"

namespace olv2 {

// Where a run stands: what a resumed run continues from.
struct TrainingProgress {
  int64_t epoch = 0;           // epochs completed (mmcv's meta.epoch)
  int64_t iteration = 0;       // optimizer steps taken (mmcv's meta.iter)
  int64_t epoch_batches = 0;   // micro-batches of epoch `epoch` already trained (mid-epoch saves)
  int64_t epoch_position = 0;  // batch positions of its sampler order consumed (skips included)
};

// What makes two runs one trajectory: a run resumed from a checkpoint must have the same.
struct RunIdentity {
  uint64_t seed = 0;
  int64_t world_size = 1;
  int64_t samples_per_gpu = 1;
  int64_t accumulation_steps = 1;
};

// Everything a training checkpoint holds, in mmcv's checkpoint layout (`meta`, `state_dict`,
// `optimizer`) plus the state mmcv keeps elsewhere (`scheduler`, `loss_scaler`, `sampler`).
struct TrainingCheckpoint {
  NamedTensors state_dict;
  PthValue optimizer;  // optimizer_state_to_pth
  LrSchedulerState scheduler;
  std::optional<LossScalerState> loss_scaler;
  TrainingProgress progress;
  RunIdentity identity;
  // Checkpoints written before the identity was recorded hold only the seed.
  bool has_batch_identity = true;
  std::string config_text;  // the resolved config as YAML
  // The hooks' states (Hook::state) as mmcv keeps them, `meta.hook_msgs`: a dict, empty when
  // no hook keeps state.
  PthValue hook_msgs = PthValue::dict();
};

// Writes the checkpoint atomically (temporary file, then rename); Python's torch.load reads it.
void save_training_checkpoint(const std::filesystem::path& path,
                              const TrainingCheckpoint& checkpoint);

// Reads a checkpoint written by save_training_checkpoint. Throws an input error naming the file
// and the missing or malformed entry.
TrainingCheckpoint read_training_checkpoint(const std::filesystem::path& path);

// The weights of any checkpoint users bring: ours, the original trainer's mmcv files
// (`state_dict` inside), or a plain `torch.save(model.state_dict())`. Strips a `module.` prefix
// left by DataParallel wrappers.
NamedTensors read_checkpoint_weights(const std::filesystem::path& path);

}  // namespace olv2
