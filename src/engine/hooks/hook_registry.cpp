#include "olv2/engine/hooks/hook_registry.h"

#include "olv2/engine/hooks/checkpoint_hook.h"
#include "olv2/engine/hooks/early_stopping_hook.h"
#include "olv2/engine/hooks/evaluation_hook.h"
#include "olv2/engine/hooks/iter_timer_hook.h"
#include "olv2/engine/hooks/json_logger_hook.h"
#include "olv2/engine/hooks/lr_schedule_hook.h"
#include "olv2/engine/hooks/optimizer_hook.h"
#include "olv2/engine/hooks/tensorboard_logger_hook.h"
#include "olv2/engine/hooks/text_logger_hook.h"

namespace olv2 {

const Registry<HookOptions>& hook_registry() {
  using HookRegistry = Registry<HookOptions>;
  static const HookRegistry registry(
      "hook", {
                  {"CheckpointHook", HookRegistry::entry<CheckpointHookOptions>()},
                  {"EarlyStoppingHook", HookRegistry::entry<EarlyStoppingOptions>()},
                  {"EvalHook", HookRegistry::entry<EvalHookOptions>()},
                  {"IterTimerHook", HookRegistry::entry<IterTimerHookOptions>()},
                  {"JsonLoggerHook", HookRegistry::entry<JsonLoggerHookOptions>()},
                  {"LrUpdaterHook", HookRegistry::entry<LrUpdaterHookOptions>()},
                  {"OptimizerHook", HookRegistry::entry<OptimizerHookOptions>()},
                  {"TensorboardLoggerHook", HookRegistry::entry<TensorboardLoggerHookOptions>()},
                  {"TextLoggerHook", HookRegistry::entry<TextLoggerHookOptions>()},
              });
  return registry;
}

}  // namespace olv2
