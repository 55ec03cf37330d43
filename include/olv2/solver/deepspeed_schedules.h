#pragma once
// DeepSpeed's LR schedules (deepspeed/runtime/lr_schedules.py) as registered types, read from a
// DeepSpeed JSON's `scheduler` section ({"type": ..., "params": {...}}): WarmupLR,
// WarmupDecayLR and WarmupCosineLR, each with its keys and DeepSpeed's defaults beside it.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/registry.h"
#include "olv2/config/schema.h"
#include "olv2/solver/lr_scheduler.h"

namespace olv2 {

// A param group as the DeepSpeed schedules see it.
struct ScheduledGroup {
  double base_lr = 0.0;  // the group's lr before the schedule (optimizer lr × lr_mult)
  double lr_mult = 1.0;
};

// The warm-up every DeepSpeed schedule starts with: gamma(t) rises from 0 to 1 over
// max(2, num_steps) applied steps, by log or linearly (`warmup_num_steps`, `warmup_type`).
struct DeepSpeedWarmup {
  int64_t num_steps = 1000;
  std::string type = "log";

  int64_t steps() const;  // DeepSpeed's max(2, warmup_num_steps)
  double gamma(int64_t t) const;
};

// A DeepSpeed schedule's options: the lr each param group gets at applied step t, computed in
// DeepSpeed's operation order so that the values equal it as doubles.
struct DeepSpeedScheduleOptions : LrScheduleOptions {
  DeepSpeedWarmup warmup;

  virtual std::string type() const = 0;
  virtual std::shared_ptr<DeepSpeedScheduleOptions> copy() const = 0;
  // The lr of `group` at t (t >= -1: -1 is what DeepSpeed's constructor writes).
  virtual double group_lr(const ScheduledGroup& group, int64_t t) const = 0;
  // One line with the settings in force, for the log.
  virtual std::string describe() const = 0;
  // The same schedule with its absolute lrs multiplied by `factor` (auto_scale_lr), with a line
  // for the log saying so; null for a schedule that has none (it scales the groups' own lrs).
  virtual std::shared_ptr<const DeepSpeedScheduleOptions> with_lrs_scaled(
      double factor, std::string& note) const = 0;

  std::unique_ptr<LrScheduler> build(const std::vector<ParamGroup>& groups, int64_t max_epochs,
                                     int64_t iters_per_epoch) const override;
};

// WarmupLR: warmup_min_lr rising to warmup_max_lr, then constant. DeepSpeed writes that one
// value into every group; here a group gets lr_mult × it, so the config's multipliers survive.
struct WarmupLrOptions : DeepSpeedScheduleOptions {
  double min_lr = 0.0;    // `warmup_min_lr`
  double max_lr = 0.001;  // `warmup_max_lr`

  static Schema schema();
  static WarmupLrOptions from_config(const ConfigNode& section);
  std::string type() const override { return "WarmupLR"; }
  std::shared_ptr<DeepSpeedScheduleOptions> copy() const override {
    return std::make_shared<WarmupLrOptions>(*this);
  }
  double group_lr(const ScheduledGroup& group, int64_t t) const override;
  std::string describe() const override;
  std::shared_ptr<const DeepSpeedScheduleOptions> with_lrs_scaled(double factor,
                                                                  std::string& note) const override;
  // The value for a group with lr_mult 1.
  double value(int64_t t) const;

 protected:
  // The factor on (max_lr - min_lr) once the warm-up is over, and what the log says of it.
  virtual double after_warmup(int64_t /*t*/) const { return 1.0; }
  virtual std::string after_warmup_text() const { return ""; }
  // The params' schema, for this type's and WarmupDecayLR's.
  static Schema params_schema();
  void read_params(const ConfigNode& params);
};

// WarmupDecayLR: WarmupLR, then a linear decay to 0 at `total_num_steps` (required).
struct WarmupDecayLrOptions : WarmupLrOptions {
  int64_t total_num_steps = 0;

  static Schema schema();
  static WarmupDecayLrOptions from_config(const ConfigNode& section);
  std::string type() const override { return "WarmupDecayLR"; }
  std::shared_ptr<DeepSpeedScheduleOptions> copy() const override {
    return std::make_shared<WarmupDecayLrOptions>(*this);
  }

 protected:
  double after_warmup(int64_t t) const override;
  std::string after_warmup_text() const override;
};

// WarmupCosineLR: each group's own lr scaled by a ratio rising from `warmup_min_ratio` to 1,
// then by a cosine to `cos_min_ratio` at `total_num_steps` (required). Before the first step
// DeepSpeed sets only the first group, to 0; here every group starts at 0.
struct WarmupCosineLrOptions : DeepSpeedScheduleOptions {
  int64_t total_num_steps = 0;
  double warmup_min_ratio = 0.0;
  double cos_min_ratio = 0.0001;

  static Schema schema();
  static WarmupCosineLrOptions from_config(const ConfigNode& section);
  std::string type() const override { return "WarmupCosineLR"; }
  std::shared_ptr<DeepSpeedScheduleOptions> copy() const override {
    return std::make_shared<WarmupCosineLrOptions>(*this);
  }
  double group_lr(const ScheduledGroup& group, int64_t t) const override;
  std::string describe() const override;
  std::shared_ptr<const DeepSpeedScheduleOptions> with_lrs_scaled(double factor,
                                                                  std::string& note) const override;
  // The ratio applied to every group's lr at t.
  double ratio(int64_t t) const;
};

// The schedules a DeepSpeed JSON's `scheduler.type` may name.
const Registry<DeepSpeedScheduleOptions>& deepspeed_schedule_registry();

// Any DeepSpeed schedule, driven as DeepSpeed drives it: t counts applied optimizer steps;
// lrs() is the value for t = -1 before the first end_step(true), then for t = 0, 1, ...; a
// skipped step does not advance t.
class DeepSpeedSchedule : public LrScheduler {
 public:
  DeepSpeedSchedule(std::shared_ptr<const DeepSpeedScheduleOptions> options,
                    std::vector<ScheduledGroup> groups);

  void end_step(bool applied) override;
  const std::vector<double>& lrs() const override { return lrs_; }
  LrSchedulerState state() const override;
  void load_state(const LrSchedulerState& state) override;
  std::string name() const override { return options_->type(); }
  std::string describe() const override { return options_->describe(); }

  int64_t last_batch_iteration() const { return last_batch_iteration_; }

 private:
  void update();

  std::shared_ptr<const DeepSpeedScheduleOptions> options_;
  std::vector<ScheduledGroup> groups_;
  int64_t last_batch_iteration_ = -1;
  std::vector<double> lrs_;
};

}  // namespace olv2
