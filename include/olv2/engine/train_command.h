#pragma once
// The `train_ds` command: its config resolved and checked, then the whole training run.
#include <memory>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/engine/hooks/hook.h"
#include "olv2/engine/settings/train_options.h"

namespace olv2 {

// Loads the config file with its `_base_` files, applies --cfg-options and the flags that stand
// for config keys (--load-from, --resume-from win over `load_from` / `resume_from`), and checks
// it against the schema. Throws an input error on any problem.
ConfigNode resolve_train_config(const TrainOptions& options);

// The whole `train_ds` run for parsed options; returns the exit status. `observers` are hooks
// run after the run's own (TrainingRun::run).
int run_train_command(const TrainOptions& options,
                      std::vector<std::unique_ptr<Hook>> observers = {});

}  // namespace olv2
