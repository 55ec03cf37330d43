#pragma once
#include "olv2/engine/checkpoint/checkpoint_keeper.h"
#include "olv2/engine/hook.h"
#include "olv2/engine/settings/engine_options.h"

namespace olv2 {

// Writes training checkpoints (mmcv's CheckpointHook): `epoch_<k>.pth` every `interval` epochs
// and after the last, `iter_<n>.pth` every `iter_interval` optimizer steps, each holding what
// an exact resume needs (weights, optimizer, LR schedule, loss scaler, progress, run identity).
// Rank 0 writes; under ZeRO every rank runs the hook, since every rank gives its part of the
// optimizer state (`writes` false: gather only).
class CheckpointHook : public Hook {
 public:
  CheckpointHook(CheckpointOptions options, const std::filesystem::path& work_dir,
                 bool writes = true);
  void after_step(TrainContext& context) override;
  void after_epoch(TrainContext& context) override;

 private:
  void save(const TrainContext& context, const std::string& series, int64_t number,
            int64_t interval, bool epoch_done);

  CheckpointOptions options_;
  CheckpointKeeper keeper_;
  bool writes_;
};

// What the run's state is as a checkpoint: the model, optimizer, schedule, scaler, progress
// (an epoch-end save counts the epoch as done; a mid-epoch save resumes inside it), identity and
// the best validation so far. Under ZeRO the optimizer state is gathered from every rank: every
// rank calls this, rank 0's result is the checkpoint.
TrainingCheckpoint checkpoint_of(const TrainContext& context, bool epoch_done);

}  // namespace olv2
