#pragma once
// DeepSpeed's LR schedules (WarmupLR, WarmupDecayLR, WarmupCosineLR), from a DeepSpeed JSON's
// `scheduler` section.
#include <string>
#include <vector>

#include "olv2/solver/lr_scheduler.h"

namespace olv2 {

// The `scheduler` section of a DeepSpeed JSON: type and params with DeepSpeed's
// defaults.
struct DeepSpeedScheduleOptions : LrScheduleOptions {
  std::string type = "WarmupLR";  // WarmupLR, WarmupDecayLR or WarmupCosineLR
  double warmup_min_lr = 0.0;     // WarmupLR / WarmupDecayLR
  double warmup_max_lr = 0.001;   // WarmupLR / WarmupDecayLR
  int64_t warmup_num_steps = 1000;
  std::string warmup_type = "log";  // "log" or "linear"
  int64_t total_num_steps = 0;      // WarmupDecayLR / WarmupCosineLR (required there)
  double warmup_min_ratio = 0.0;    // WarmupCosineLR
  double cos_min_ratio = 0.0001;    // WarmupCosineLR

  std::unique_ptr<LrScheduler> build(const std::vector<ParamGroup>& groups, int64_t max_epochs,
                                     int64_t iters_per_epoch) const override;
};

// A param group as the DeepSpeed schedules see it.
struct ScheduledGroup {
  double base_lr = 0.0;  // the group's lr before the schedule (optimizer lr × lr_mult)
  double lr_mult = 1.0;
};

// DeepSpeed's WarmupLR, WarmupDecayLR and WarmupCosineLR
// (deepspeed/runtime/lr_schedules.py), in DeepSpeed's operation order so group
// values equal it as doubles. t counts applied optimizer steps: lrs() is the
// value for t = -1 before the first end_step(true) (what the constructor writes
// in DeepSpeed), then for t = 0, 1, ...; a skipped step does not advance t.
// Groups: WarmupCosineLR scales each group's base_lr by its ratio, as DeepSpeed
// does. WarmupLR and WarmupDecayLR compute one value v(t) from the min/max lr;
// DeepSpeed writes v(t) into every group, here a group gets lr_mult × v(t) so
// the config's lr multipliers survive. (Before the first step DeepSpeed's
// WarmupCosineLR sets only the first group, to 0; here every group starts at
// 0.)
class DeepSpeedSchedule : public LrScheduler {
 public:
  DeepSpeedSchedule(const DeepSpeedScheduleOptions& options, std::vector<ScheduledGroup> groups);

  void end_step(bool applied) override;
  const std::vector<double>& lrs() const override { return lrs_; }
  LrSchedulerState state() const override;
  void load_state(const LrSchedulerState& state) override;
  std::string name() const override { return options_.type; }
  std::string describe() const override;

  int64_t last_batch_iteration() const { return last_batch_iteration_; }
  // WarmupLR / WarmupDecayLR: the value for a group with lr_mult 1 at step t (t
  // >= -1).
  double warmup_lr(int64_t t) const;
  // WarmupCosineLR: the ratio applied to every base lr at step t (t >= -1).
  double cosine_ratio(int64_t t) const;

 private:
  double warmup_gamma(int64_t t) const;
  void update();

  DeepSpeedScheduleOptions options_;
  std::vector<ScheduledGroup> groups_;
  int64_t warmup_steps_;  // DeepSpeed's max(2, warmup_num_steps)
  double inverse_log_warm_up_;
  int64_t last_batch_iteration_ = -1;
  std::vector<double> lrs_;
};

}  // namespace olv2
