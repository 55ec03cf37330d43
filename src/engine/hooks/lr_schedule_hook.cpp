#include "olv2/engine/hooks/lr_schedule_hook.h"

#include "olv2/engine/train_context.h"

namespace olv2 {

void LrScheduleHook::before_epoch(TrainContext& context) {
  context.scheduler->begin_epoch(context.epoch);
}

void LrScheduleHook::before_step(TrainContext& context) {
  context.scheduler->begin_iteration(context.iteration);
  context.optimizer->set_lrs(context.scheduler->lrs());
}

void LrScheduleHook::after_step(TrainContext& context) {
  context.scheduler->end_step(context.step.outcome.applied);
}

Schema LrUpdaterHookOptions::schema() { return hook_schema("LrUpdaterHook"); }

LrUpdaterHookOptions LrUpdaterHookOptions::from_config(const ConfigNode& section) {
  LrUpdaterHookOptions options;
  options.priority = read_hook_priority(section, HookPriority::kVeryHigh);
  return options;
}

std::unique_ptr<Hook> LrUpdaterHookOptions::build(const HookSite& /*site*/) const {
  return std::make_unique<LrScheduleHook>();
}

}  // namespace olv2
