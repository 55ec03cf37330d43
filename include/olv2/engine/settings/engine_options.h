#pragma once
// The engine's settings of a config (epochs, logging, checkpoints, validation, hooks, resume),
// read once.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/engine/distributed/distributed_options.h"
#include "olv2/engine/hooks/evaluation_hook.h"
#include "olv2/engine/logging/log_options.h"
#include "olv2/engine/hooks/training_hooks.h"

namespace olv2 {

// The engine's settings of a validated config, read once: the loop and its hooks never look
// at the config again.
struct EngineOptions {
  int64_t max_epochs = 1;
  int64_t workers_per_gpu = 1;
  bool has_val_split = false;  // `data.val` exists
  LogOptions log;
  EvaluationOptions evaluation;  // what test_ds scores with and writes (the EvalHook has its own)
  DistributedOptions dist;
  std::vector<ConfiguredHook> hooks;  // every hook of a training run (training_hooks.h)
  std::string resume_from;  // `resume_from` (the flag already merged in); "auto": latest.pth
  std::string load_from;
  std::optional<int> threads;  // `threads`
};

EngineOptions engine_options_from_config(const ConfigNode& root);

}  // namespace olv2
