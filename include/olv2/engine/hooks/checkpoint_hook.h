#pragma once
// The hook that writes training checkpoints, mmcv's CheckpointHook, and its `checkpoint_config`.
#include <cstdint>
#include <filesystem>
#include <string>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/engine/checkpoint/checkpoint_keeper.h"
#include "olv2/engine/hooks/hook.h"
#include "olv2/engine/hooks/hook_options.h"

namespace olv2 {

// `checkpoint_config`, as mmcv's CheckpointHook reads it.
struct CheckpointOptions {
  int64_t interval = 1;       // epochs between `epoch_<k>.pth`; <= 0: none (the last still)
  int64_t iter_interval = 0;  // optimizer steps between `iter_<n>.pth`; 0: none
  int64_t max_keep = -1;      // `max_keep_ckpts`: files kept per series; <= 0 keeps all

  static Schema schema();  // `by_epoch` is accepted: epochs and steps are both counted
  // An absent section keeps the defaults.
  static CheckpointOptions from_config(const ConfigNode* section);
};

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

// `CheckpointHook` (priority NORMAL), built from `checkpoint_config`'s keys.
struct CheckpointHookOptions : HookOptions {
  CheckpointOptions checkpoint;

  static Schema schema();
  static CheckpointHookOptions from_config(const ConfigNode& section);
  std::unique_ptr<Hook> build(const HookSite& site) const override;
};

}  // namespace olv2
