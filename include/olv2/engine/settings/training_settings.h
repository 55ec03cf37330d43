#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/engine/precision/loss_scaler.h"
#include "olv2/engine/settings/deepspeed_config.h"
#include "olv2/solver/deepspeed_schedules.h"
#include "olv2/solver/lr_scheduler.h"
#include "olv2/solver/mmcv_cosine_annealing.h"
#include "olv2/solver/param_groups.h"
#include "olv2/solver/solver_config.h"

namespace olv2 {

// Mixed precision as requested. fp16 means fp16 autocast with the loss scaler
// on CUDA (bf16 autocast with the scaler on CPU); bf16 alone means bf16
// autocast without a scaler. The scaler is make_loss_scaler(scaler_kind, scaler).
struct PrecisionSettings {
  bool fp16 = false;
  bool bf16 = false;
  bool fp16_from_command_line = false;  // --use-fp16: stays on whatever the configs say
  // As DeepSpeed picks it: a DeepSpeed JSON's fp16 section gives FP16_Optimizer
  // without ZeRO and DynamicLossScaler with ZeRO stage >= 1; the YAML `fp16`
  // section keeps DynamicLossScaler.
  LossScalerKind scaler_kind = LossScalerKind::kDynamicLossScaler;
  LossScalerOptions scaler;
};

// The optimisation settings a run uses, after the YAML config and an optional
// DeepSpeed JSON are combined. Exactly one of `cosine` / `deepspeed_schedule`
// is set.
struct TrainingSettings {
  SolverOptions solver;
  std::optional<CosineAnnealingOptions> cosine;
  std::optional<DeepSpeedScheduleOptions> deepspeed_schedule;
  int64_t samples_per_gpu = 1;
  int64_t accumulation_steps = 1;
  PrecisionSettings precision;
  // DeepSpeed's `zero_optimization.stage`: 1 shards the optimizer state over the ranks, 2 also
  // the gradients (engine/distributed/zero_optimizer.h); 0 shards nothing.
  int64_t zero_stage = 0;
  // One "setting = value <- source" line per setting, for the log.
  std::vector<std::string> sources;
  // Notes for the log, once each: what a DeepSpeed JSON asks for that runs
  // differently here (ZeRO with one process: nothing to shard; fp16 keys
  // FP16_Optimizer ignores).
  std::vector<std::string> notes;
};

// Loss-scaler options from fp16 keys: each key given overrides DeepSpeed's
// dynamic-scaling defaults (2^16, window 1000, hysteresis 2, min 1), which hold
// whether or not any key is given (the YAML section and FP16_Optimizer).
LossScalerOptions loss_scaler_options(const DeepSpeedFp16& fp16);

// The options ZeRO's DynamicLossScaler gets: as loss_scaler_options when the
// section names a dynamic-scaling key (initial_scale_power, loss_scale_window,
// min_loss_scale, hysteresis, consecutive_hysteresis); otherwise the class
// defaults (2^32, window 1000, hysteresis 1, min 1). `loss_scale` and
// `raise_error_at_min_scale` apply either way.
LossScalerOptions zero_loss_scaler_options(const DeepSpeedFp16& fp16);

// The `fp16` section of the YAML config (its keys are DeepSpeed's; a present
// section enables fp16 unless `enabled: false`, as mmcv's `fp16 = dict(...)`
// does).
DeepSpeedFp16 fp16_from_config(const ConfigNode& fp16);

// Reads `optimizer`, `optimizer_config`, `lr_config`, `data.samples_per_gpu`,
// `data.gradient_accumulation_steps`, `fp16` and `bf16` of a validated config.
// `use_fp16_flag` is the command line's --use-fp16.
TrainingSettings training_settings_from_config(const ConfigNode& root, bool use_fp16_flag);

// Applies a DeepSpeed JSON: every key present overrides its YAML counterpart
// (optimizer type and params key by key, scheduler -> the LR schedule,
// gradient_clipping -> grad_clip.max_norm, the batch keys -> samples_per_gpu /
// accumulation, fp16 / bf16); keys absent keep the YAML value (paramwise
// lr_mult always does: DeepSpeed has no counterpart). An fp16 section picks
// the scaler by zero_optimization.stage as DeepSpeed does (see
// PrecisionSettings); ZeRO stage >= 1 adds a note.
TrainingSettings apply_deepspeed_config(TrainingSettings settings, const DeepSpeedConfig& json,
                                        int64_t world_size);

// The LR schedule the settings name, over `groups` (base lr and lr_mult per group);
// `iters_per_epoch` counts optimizer steps.
std::unique_ptr<LrScheduler> build_lr_scheduler(const TrainingSettings& settings,
                                                const std::vector<ParamGroup>& groups,
                                                int64_t max_epochs, int64_t iters_per_epoch);

}  // namespace olv2
