#pragma once
// The hook that drives the LR schedule, mmcv's LrUpdaterHook and DeepSpeed's scheduler.step().
#include "olv2/engine/hooks/hook.h"
#include "olv2/engine/hooks/hook_options.h"

namespace olv2 {

// Drives the LR schedule (mmcv's LrUpdaterHook; DeepSpeed's scheduler.step()): tells it each
// epoch start and each step, writes its lrs into the optimizer's param groups before the step,
// and reports whether the step was applied (a step skipped for overflow does not advance a
// DeepSpeed schedule).
class LrScheduleHook : public Hook {
 public:
  void before_epoch(TrainContext& context) override;
  void before_step(TrainContext& context) override;
  void after_step(TrainContext& context) override;
};

// `LrUpdaterHook` (priority VERY_HIGH): no keys of its own; the schedule is the run's
// (`lr_config`, or the DeepSpeed JSON's `scheduler`).
struct LrUpdaterHookOptions : HookOptions {
  static Schema schema();
  static LrUpdaterHookOptions from_config(const ConfigNode& section);
  std::unique_ptr<Hook> build(const HookSite& site) const override;
};

}  // namespace olv2
