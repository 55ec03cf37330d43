#pragma once
// The optimisation settings of a run: the YAML config's, with a DeepSpeed JSON laid over them, and
// the LR schedule they build.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/engine/precision/precision.h"
#include "olv2/engine/settings/deepspeed_config.h"
#include "olv2/solver/deepspeed_schedules.h"
#include "olv2/solver/lr_scheduler.h"
#include "olv2/solver/mmcv_cosine_annealing.h"
#include "olv2/solver/param_groups.h"
#include "olv2/solver/solver_config.h"

namespace olv2 {

// Where one setting's value came from, for the log.
struct SettingSource {
  std::string setting;  // "optimizer.lr"
  std::string value;    // as the log shows it
  std::string source;   // "config FILE:LINE:COL `optimizer.lr`", "command line --use-fp16", ...
  std::string line() const { return setting + " = " + value + " <- " + source; }
};

// The optimisation settings a run uses: the YAML config's, a DeepSpeed JSON laid over them, and
// the command line over both.
struct TrainingSettings {
  SolverOptions solver;
  // `lr_config` by its policy, or the DeepSpeed JSON's `scheduler`.
  std::shared_ptr<const LrScheduleOptions> lr_schedule;
  int64_t samples_per_gpu = 1;
  int64_t accumulation_steps = 1;
  PrecisionSettings precision;
  // DeepSpeed's `zero_optimization.stage`: 1 shards the optimizer state over the ranks, 2 also
  // the gradients (engine/distributed/zero_optimizer.h); 0 shards nothing.
  int64_t zero_stage = 0;
  // One entry per setting, in the order first set; a later layer replaces the entry.
  std::vector<SettingSource> sources;
  // Notes for the log, once each: what a DeepSpeed JSON asks for that runs
  // differently here (ZeRO with one process: nothing to shard; fp16 keys
  // FP16_Optimizer ignores).
  std::vector<std::string> notes;

  // Records `setting`'s value and where it came from, replacing what an earlier layer recorded.
  void record(const std::string& setting, const std::string& value, const std::string& source);
  // Drops the entry of `setting`: one a later layer's choice does not have (the momentum of an
  // SGD the DeepSpeed JSON replaces by Adam).
  void forget(const std::string& setting);
  // The entry of `setting`, or null when none was recorded.
  const SettingSource* source_of(const std::string& setting) const;
};

// Reads `optimizer`, `optimizer_config`, `lr_config`, `data.samples_per_gpu`,
// `data.gradient_accumulation_steps`, `fp16` and `bf16` of a validated config.
TrainingSettings training_settings_from_config(const ConfigNode& root);

// Applies a DeepSpeed JSON: every key present overrides its YAML counterpart
// (the optimizer's type and params key by key (DeepSpeedOptimizer::laid_over), scheduler -> the LR
// schedule, gradient_clipping -> grad_clip.max_norm, the batch keys -> samples_per_gpu /
// accumulation, fp16 / bf16); keys absent keep the YAML value (paramwise
// lr_mult always does: DeepSpeed has no counterpart). An fp16 section picks
// the scaler by zero_optimization.stage as DeepSpeed does (see
// PrecisionSettings); ZeRO stage >= 1 adds a note.
TrainingSettings apply_deepspeed_config(TrainingSettings settings, const DeepSpeedConfig& json,
                                        int64_t world_size);

// The command line's settings, laid over the config's and the DeepSpeed JSON's: --use-fp16
// turns fp16 on whatever they say.
TrainingSettings apply_command_line(TrainingSettings settings, bool use_fp16);

// The LR schedule the settings name, over `groups` (base lr and lr_mult per group);
// `iters_per_epoch` counts optimizer steps.
std::unique_ptr<LrScheduler> build_lr_scheduler(const TrainingSettings& settings,
                                                const std::vector<ParamGroup>& groups,
                                                int64_t max_epochs, int64_t iters_per_epoch);

}  // namespace olv2
