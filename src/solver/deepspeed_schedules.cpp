#include "olv2/solver/deepspeed_schedules.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "olv2/util/error.h"
#include "olv2/util/math_constants.h"

namespace olv2 {

std::unique_ptr<LrScheduler> DeepSpeedScheduleOptions::build(const std::vector<ParamGroup>& groups,
                                                             int64_t /*max_epochs*/,
                                                             int64_t /*iters_per_epoch*/) const {
  std::vector<ScheduledGroup> scheduled;
  for (const ParamGroup& group : groups) scheduled.push_back({group.lr, group.lr_mult});
  return std::make_unique<DeepSpeedSchedule>(*this, scheduled);
}
namespace {

void validate(const DeepSpeedScheduleOptions& options) {
  const std::string& type = options.type;
  if (type != "WarmupLR" && type != "WarmupDecayLR" && type != "WarmupCosineLR") {
    throw input_error("scheduler type `" + type +
                      "` is not supported, expected WarmupLR, WarmupDecayLR or "
                      "WarmupCosineLR");
  }
  if (options.warmup_type != "log" && options.warmup_type != "linear") {
    throw input_error("scheduler " + type + ": warmup_type `" + options.warmup_type +
                      "`, expected log or linear");
  }
  if (type != "WarmupLR" && options.total_num_steps <= 0) {
    throw input_error("scheduler " + type + ": total_num_steps must be a positive integer");
  }
}

}  // namespace

DeepSpeedSchedule::DeepSpeedSchedule(const DeepSpeedScheduleOptions& options,
                                     std::vector<ScheduledGroup> groups)
    : options_(options),
      groups_(std::move(groups)),
      warmup_steps_(std::max<int64_t>(2, options.warmup_num_steps)),
      inverse_log_warm_up_(1.0 / std::log(static_cast<double>(warmup_steps_))) {
  validate(options_);
  update();
}

double DeepSpeedSchedule::warmup_gamma(int64_t t) const {
  if (options_.warmup_type == "log") {
    return inverse_log_warm_up_ * std::log(static_cast<double>(t + 1));
  }
  return static_cast<double>(t) / static_cast<double>(warmup_steps_);
}

double DeepSpeedSchedule::warmup_lr(int64_t t) const {
  if (t < 0) return options_.warmup_min_lr;
  double gamma = 1.0;
  if (t < warmup_steps_) {
    gamma = warmup_gamma(t);
  } else if (options_.type == "WarmupDecayLR") {
    const double remaining = static_cast<double>(options_.total_num_steps - t);
    const double span =
        std::max(1.0, static_cast<double>(options_.total_num_steps - warmup_steps_));
    gamma = std::max(0.0, remaining / span);
  }
  const double delta = options_.warmup_max_lr - options_.warmup_min_lr;
  return options_.warmup_min_lr + delta * gamma;
}

double DeepSpeedSchedule::cosine_ratio(int64_t t) const {
  if (t < 0) return 0.0;
  if (t < warmup_steps_) {
    const double ratio = warmup_gamma(t);
    const double ratio_delta = 1. - options_.warmup_min_ratio;
    return options_.warmup_min_ratio + ratio * ratio_delta;
  }
  // Original behaviour: the cosine index starts at 1, so the first value after
  // warm-up is already below 1, and nothing clamps it past total_num_steps.
  const double real_last_step = static_cast<double>(t - warmup_steps_ + 1);
  const double real_total_steps = static_cast<double>(options_.total_num_steps - warmup_steps_);
  const double ratio_delta = 1. - options_.cos_min_ratio;
  const double ratio = (1 + std::cos(kPi * real_last_step / real_total_steps)) / 2;
  return std::max(0.0, options_.cos_min_ratio + ratio_delta * ratio);
}

void DeepSpeedSchedule::update() {
  lrs_.clear();
  if (options_.type == "WarmupCosineLR") {
    const double ratio = cosine_ratio(last_batch_iteration_);
    for (const ScheduledGroup& group : groups_) lrs_.push_back(group.base_lr * ratio);
    return;
  }
  const double value = warmup_lr(last_batch_iteration_);
  for (const ScheduledGroup& group : groups_) lrs_.push_back(group.lr_mult * value);
}

void DeepSpeedSchedule::end_step(bool applied) {
  if (!applied) return;
  ++last_batch_iteration_;
  update();
}

LrSchedulerState DeepSpeedSchedule::state() const {
  LrSchedulerState state;
  state.policy = name();
  state.last_batch_iteration = last_batch_iteration_;
  for (const ScheduledGroup& group : groups_) state.base_lrs.push_back(group.base_lr);
  return state;
}

void DeepSpeedSchedule::load_state(const LrSchedulerState& state) {
  if (state.policy != name() || state.base_lrs.size() != groups_.size()) {
    throw input_error("scheduler state of `" + state.policy + "` with " +
                      std::to_string(state.base_lrs.size()) + " param groups cannot resume " +
                      name() + " with " + std::to_string(groups_.size()));
  }
  for (size_t i = 0; i < groups_.size(); ++i) groups_[i].base_lr = state.base_lrs[i];
  last_batch_iteration_ = state.last_batch_iteration;
  update();
}

std::string DeepSpeedSchedule::describe() const {
  std::ostringstream out;
  out << "DeepSpeed " << options_.type << " (" << options_.warmup_type << " warm-up over "
      << warmup_steps_ << " steps";
  if (options_.type == "WarmupCosineLR") {
    out << " from ratio " << options_.warmup_min_ratio << ", cosine to ratio "
        << options_.cos_min_ratio << " at step " << options_.total_num_steps
        << "; each group scaled from its own lr)";
  } else {
    out << " from " << options_.warmup_min_lr << " to " << options_.warmup_max_lr;
    if (options_.type == "WarmupDecayLR") {
      out << ", linear decay to 0 at step " << options_.total_num_steps;
    }
    out << "; group lr = lr_mult x this value, where DeepSpeed gives every "
           "group the same)";
  }
  return out.str();
}

}  // namespace olv2
