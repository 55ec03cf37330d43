#pragma once
#include "olv2/engine/checkpoint/checkpoint_keeper.h"
#include "olv2/engine/hook.h"
#include "olv2/engine/settings/engine_options.h"

namespace olv2 {

// Writes training checkpoints (mmcv's CheckpointHook): `epoch_<k>.pth` every `interval` epochs
// and after the last (the one a hook stopped the run at, too), `iter_<n>.pth` every `iter_interval`
// optimizer steps, each holding what an exact resume needs (checkpoint_of). Every rank runs it,
// since the optimizer state may be sharded; rank 0 writes.
class CheckpointHook : public Hook {
 public:
  CheckpointHook(CheckpointOptions options, const std::filesystem::path& work_dir);
  void after_step(TrainContext& context) override;
  void after_epoch(TrainContext& context) override;

 private:
  void save(const TrainContext& context, const std::string& series, int64_t number,
            int64_t interval, bool epoch_done);

  CheckpointOptions options_;
  CheckpointKeeper keeper_;
};

}  // namespace olv2
