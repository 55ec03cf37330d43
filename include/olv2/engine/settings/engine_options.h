#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/engine/hook_registry.h"
#include "olv2/evaluation/submission_metadata.h"
#include "olv2/evaluation/topology_metrics.h"

namespace olv2 {

// `checkpoint_config`, as mmcv's CheckpointHook reads it.
struct CheckpointOptions {
  int64_t interval = 1;       // epochs between `epoch_<k>.pth`; <= 0: none (the last still)
  int64_t iter_interval = 0;  // optimizer steps between `iter_<n>.pth`; 0: none
  int64_t max_keep = -1;      // files kept per series; <= 0 keeps all
};

// `evaluation`, and the top-level `submission` section that goes into every results file.
struct EvaluationOptions {
  int64_t interval = 1;  // epochs between validations (and after the last); 0: never
  bool before_train = false;
  int64_t visualize = 0;  // pictures of the first frames drawn per validation (`visualize`)
  // `save_best`: the headline metric whose best validation is kept as
  // `best_<metric>_epoch_<k>.pth`; empty: none. `rule`: greater (default) or less is better.
  std::string save_best;
  bool greater_is_better = true;
  // `keep_results`: how many of the latest `results_epoch_<k>.json` stay (the best epoch's
  // too); <= 0 keeps all.
  int64_t keep_results = 1;
  // `metric_version`: v1.1 (default) or v1.0, the devkit's TOP definitions of that tag.
  MetricVersion metric_version = MetricVersion::kV1_1;
  SubmissionMetadata submission = method_only("train_ds");  // `method` defaults to ours
};

// `log_config`.
struct LogOptions {
  int64_t interval = 10;       // optimizer steps per logged average
  bool tensorboard = false;    // `TensorboardLoggerHook` in `hooks`
  std::string level = "INFO";  // mmcv's `log_level`
};

// `dist_params`: how the ranks of a multi-process run talk.
struct DistributedOptions {
  std::string backend;          // "gloo" or "nccl"; empty: NCCL on CUDA, Gloo on the CPU
  double timeout_s = 1800.0;    // a collective that waits longer fails (PyTorch's default)
  double bucket_cap_mb = 25.0;  // gradient all-reduce bucket size (DDP's default)
  // Each bucket's all-reduce (reduce-scatter under ZeRO stage 2) starts during the backward as
  // soon as its gradients are final, as DDP does; false: all of them after the backward.
  bool overlap_comm = true;
};

// The engine's settings of a validated config, read once: the loop and its hooks never look
// at the config again.
struct EngineOptions {
  int64_t max_epochs = 1;
  int64_t workers_per_gpu = 1;
  bool has_val_split = false;  // `data.val` exists
  LogOptions log;
  CheckpointOptions checkpoint;
  EvaluationOptions evaluation;
  DistributedOptions dist;
  std::vector<CustomHook> custom_hooks;  // `custom_hooks`
  std::string resume_from;  // `resume_from` (the flag already merged in); "auto": latest.pth
  std::string load_from;
  std::optional<int> threads;  // `threads`
};

EngineOptions engine_options_from_config(const ConfigNode& root);

}  // namespace olv2
