#pragma once
// The learning-rate schedules: the scheduler interface the loop drives, and the options family
// `lr_config.policy` chooses from.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "olv2/config/registry.h"
#include "olv2/solver/param_groups.h"

namespace olv2 {

// Everything a checkpoint needs to continue a schedule. mmcv schedules are
// functions of the (epoch, iteration) they were last told; DeepSpeed schedules
// count applied optimizer steps.
struct LrSchedulerState {
  std::string policy;                 // the scheduler's name(), checked on load
  int64_t epoch = -1;                 // last begin_epoch() (mmcv)
  int64_t iteration = -1;             // last begin_iteration() (mmcv)
  int64_t last_batch_iteration = -1;  // applied steps - 1 (DeepSpeed)
  std::vector<double> base_lrs;       // per param group, mmcv's `initial_lr`
};

// A learning-rate schedule over param groups. The training loop calls, in this
// order:
//   begin_epoch(e) at each epoch start (e counts from 0),
//   begin_iteration(i) before each optimizer step (i = optimizer steps taken
//   before it,
//     across epochs),
//   lrs() for the values the optimizer step uses,
//   end_step(applied) after the step (applied false when it was skipped for
//   overflow).
// mmcv schedules act in begin_epoch/begin_iteration (mmcv's before_train_epoch
// / before_train_iter); DeepSpeed schedules act in end_step (scheduler.step()
// after each applied optimizer step).
class LrScheduler {
 public:
  virtual ~LrScheduler() = default;
  virtual void begin_epoch(int64_t /*epoch*/) {}
  virtual void begin_iteration(int64_t /*iteration*/) {}
  virtual void end_step(bool /*applied*/) {}
  // One value per param group, for the next optimizer step.
  virtual const std::vector<double>& lrs() const = 0;
  virtual LrSchedulerState state() const = 0;
  // Restores a state() of a scheduler with the same name() and number of
  // groups.
  virtual void load_state(const LrSchedulerState& state) = 0;
  virtual std::string name() const = 0;
  // One line with the settings in force, for the log.
  virtual std::string describe() const = 0;
};

// A schedule's options: the YAML `lr_config` (by `policy`) or a DeepSpeed JSON's `scheduler`.
struct LrScheduleOptions {
  virtual ~LrScheduleOptions() = default;
  // The schedule over `groups` (their initial lr and lr_mult), for a run of `max_epochs` epochs
  // of `iters_per_epoch` optimizer steps.
  virtual std::unique_ptr<LrScheduler> build(const std::vector<ParamGroup>& groups,
                                             int64_t max_epochs, int64_t iters_per_epoch) const = 0;
};

// The schedules an `lr_config.policy` may name.
const Registry<LrScheduleOptions>& lr_schedule_registry();

}  // namespace olv2
