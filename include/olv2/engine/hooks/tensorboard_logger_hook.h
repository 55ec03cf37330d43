#pragma once
// The hook that writes training and validation scalars for TensorBoard, mmcv's
// TensorboardLoggerHook.
#include <filesystem>

#include "olv2/engine/hooks/hook.h"
#include "olv2/engine/hooks/hook_options.h"
#include "olv2/engine/logging/tensorboard_writer.h"

namespace olv2 {

// TensorBoard scalars (mmcv's TensorboardLoggerHook) in `<work_dir>/tf_logs`: the train
// averages, lr and loss scale every log interval, the metrics after every validation, all at
// the optimizer-step count.
class TensorboardLoggerHook : public Hook {
 public:
  explicit TensorboardLoggerHook(const std::filesystem::path& directory) : writer_(directory) {}
  void before_run(TrainContext& context) override { write_validation(context); }
  void after_step(TrainContext& context) override;
  void after_epoch(TrainContext& context) override { write_validation(context); }

 private:
  void write_validation(const TrainContext& context);

  TensorboardWriter writer_;
};

// `TensorboardLoggerHook` (priority VERY_LOW), on rank 0, with the logger keys
// (logger_hook_keys).
struct TensorboardLoggerHookOptions : HookOptions {
  static Schema schema();
  static TensorboardLoggerHookOptions from_config(const ConfigNode& section);
  std::unique_ptr<Hook> build(const HookSite& site) const override;
};

}  // namespace olv2
