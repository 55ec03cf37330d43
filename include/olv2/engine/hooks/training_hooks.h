#pragma once
// The hooks of a training run, every one built by the hook registry from its config section:
// the default ones mmcv's Runner registers (from `lr_config`, `optimizer_config`,
// `checkpoint_config`, `log_config`) and mmdet's EvalHook (from `evaluation`), changed or dropped
// by `default_hooks` as mmengine allows, the loggers of `log_config.hooks` and `custom_hooks`.
#include <memory>
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/engine/hooks/hook_options.h"

namespace olv2 {

// A hook of the run: its `type`, naming it in the log, and its options.
struct ConfiguredHook {
  std::string type;
  std::shared_ptr<const HookOptions> options;
};

// `custom_hooks`: a list of hook sections of registered types, each added as given.
Schema custom_hooks_schema();
// `default_hooks`, as mmengine's: by a default hook's name (param_scheduler, optimizer,
// evaluation, checkpoint, timer, json_logger), keys laid over its section (a `type` of
// another hook replaces the section) or null to drop it; under a new name, a hook section with
// its `type`, added.
Schema default_hooks_schema();

// Every hook of a training run of the validated config `root`, in this order (the run orders
// them by priority, keeping this order within one): the default hooks LrUpdaterHook
// (param_scheduler), OptimizerHook (optimizer), EvalHook (evaluation: `evaluation`'s keys and
// `submission`), CheckpointHook (checkpoint: `checkpoint_config`'s keys), IterTimerHook (timer:
// `log_config.interval`), then `log_config.hooks` (a TextLoggerHook without that key), the
// default JsonLoggerHook (json_logger), the hooks `default_hooks` adds and `custom_hooks`. An
// input error names a `default_hooks` entry that fits no hook.
std::vector<ConfiguredHook> training_hooks_from_config(const ConfigNode& root);

}  // namespace olv2
