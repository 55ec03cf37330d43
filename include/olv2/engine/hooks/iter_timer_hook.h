#pragma once
// The hook that times each optimizer step and sets the logging intervals, mmcv's IterTimerHook.
#include <cstdint>

#include "olv2/engine/hooks/hook.h"
#include "olv2/engine/hooks/hook_options.h"

namespace olv2 {

// Times each optimizer step and records its numbers in the log buffer in mmcv's key order
// (data_time, the loss terms, loss, grad_norm, time), as mmcv's IterTimerHook and runner do;
// every `log_interval` steps of an epoch it averages them and marks the interval due for the
// loggers. The ETA is the mean step time of this run times the steps left: validation and
// checkpoint writes happen outside the steps and do not count.
class IterTimerHook : public Hook {
 public:
  explicit IterTimerHook(int64_t log_interval) : log_interval_(log_interval) {}
  void before_epoch(TrainContext& context) override;
  void before_step(TrainContext& context) override;
  void after_step(TrainContext& context) override;

 private:
  int64_t log_interval_;
  double step_seconds_ = 0.0;
  int64_t steps_ = 0;
};

// `IterTimerHook` (priority LOW): `interval`, the optimizer steps per logged average
// (`log_config.interval` in the default hook).
struct IterTimerHookOptions : HookOptions {
  int64_t interval = 10;

  static Schema schema();
  static IterTimerHookOptions from_config(const ConfigNode& section);
  std::unique_ptr<Hook> build(const HookSite& site) const override;
};

}  // namespace olv2
