#pragma once
// The hook types a config may name, by `type`: mmcv's Runner's own (LrUpdaterHook,
// OptimizerHook, CheckpointHook, IterTimerHook, the loggers), mmdet's EvalHook, this project's
// JsonLoggerHook and mmengine's EarlyStoppingHook.
#include "olv2/config/registry.h"
#include "olv2/engine/hooks/hook_options.h"

namespace olv2 {

const Registry<HookOptions>& hook_registry();

}  // namespace olv2
