#include "olv2/solver/deepspeed_schedules.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "olv2/util/error.h"
#include "olv2/util/math_constants.h"

namespace olv2 {

namespace {

constexpr double kLargest = std::numeric_limits<double>::max();
constexpr double kLargestCount = 1e18;

Schema non_negative() { return Schema::number().range(0.0, kLargest); }

// `type` and `params`, the keys every schedule's params share with `own` added.
Schema schedule_schema(const std::string& type, Schema params, bool params_required) {
  params.optional("warmup_num_steps", Schema::integer().range(0, kLargestCount))
      .optional("warmup_type", Schema::string().choices({"log", "linear"}));
  Schema schema = Schema::map();
  schema.required("type", Schema::string().choices({type}));
  if (params_required) {
    schema.required("params", std::move(params));
  } else {
    schema.optional("params", std::move(params));
  }
  return schema;
}

// The section's `params`, or an empty mapping when it has none.
ConfigNode params_of(const ConfigNode& section) {
  const ConfigNode* params = section.find("params");
  return params != nullptr && !params->is_null() ? *params : ConfigNode::map(section.location());
}

void read_warmup(const ConfigNode& params, DeepSpeedWarmup& warmup) {
  warmup.num_steps = params.get<int64_t>("warmup_num_steps", warmup.num_steps);
  warmup.type = params.get<std::string>("warmup_type", warmup.type);
}

std::string warmup_text(const DeepSpeedWarmup& warmup) {
  return warmup.type + " warm-up over " + std::to_string(warmup.steps()) + " steps";
}

}  // namespace

int64_t DeepSpeedWarmup::steps() const { return std::max<int64_t>(2, num_steps); }

double DeepSpeedWarmup::gamma(int64_t t) const {
  if (type == "log") {
    const double inverse_log_warm_up = 1.0 / std::log(static_cast<double>(steps()));
    return inverse_log_warm_up * std::log(static_cast<double>(t + 1));
  }
  return static_cast<double>(t) / static_cast<double>(steps());
}

std::unique_ptr<LrScheduler> DeepSpeedScheduleOptions::build(const std::vector<ParamGroup>& groups,
                                                             int64_t /*max_epochs*/,
                                                             int64_t /*iters_per_epoch*/) const {
  std::vector<ScheduledGroup> scheduled;
  for (const ParamGroup& group : groups) scheduled.push_back({group.lr, group.lr_mult});
  return std::make_unique<DeepSpeedSchedule>(copy(), scheduled);
}

// --- WarmupLR, WarmupDecayLR ------------------------------------------------------------------

Schema WarmupLrOptions::params_schema() {
  return Schema::map()
      .optional("warmup_min_lr", non_negative())
      .optional("warmup_max_lr", non_negative());
}

Schema WarmupLrOptions::schema() {
  return schedule_schema("WarmupLR", params_schema(), /*params_required=*/false);
}

void WarmupLrOptions::read_params(const ConfigNode& params) {
  min_lr = params.get<double>("warmup_min_lr", min_lr);
  max_lr = params.get<double>("warmup_max_lr", max_lr);
  read_warmup(params, warmup);
}

WarmupLrOptions WarmupLrOptions::from_config(const ConfigNode& section) {
  WarmupLrOptions o;
  o.read_params(params_of(section));
  return o;
}

double WarmupLrOptions::value(int64_t t) const {
  if (t < 0) return min_lr;
  const double gamma = t < warmup.steps() ? warmup.gamma(t) : after_warmup(t);
  const double delta = max_lr - min_lr;
  return min_lr + delta * gamma;
}

double WarmupLrOptions::group_lr(const ScheduledGroup& group, int64_t t) const {
  return group.lr_mult * value(t);
}

std::string WarmupLrOptions::describe() const {
  std::ostringstream out;
  out << "DeepSpeed " << type() << " (" << warmup_text(warmup) << " from " << min_lr << " to "
      << max_lr << after_warmup_text()
      << "; group lr = lr_mult x this value, where DeepSpeed gives every group the same)";
  return out.str();
}

std::shared_ptr<const DeepSpeedScheduleOptions> WarmupLrOptions::with_lrs_scaled(
    double factor, std::string& note) const {
  auto scaled = std::static_pointer_cast<WarmupLrOptions>(copy());
  scaled->min_lr = factor * min_lr;
  scaled->max_lr = factor * max_lr;
  std::ostringstream out;
  out << "DeepSpeed " << type() << " lrs scaled by " << factor << " as well: warmup_min_lr "
      << min_lr << " -> " << scaled->min_lr << ", warmup_max_lr " << max_lr << " -> "
      << scaled->max_lr;
  note = out.str();
  return scaled;
}

Schema WarmupDecayLrOptions::schema() {
  Schema params = params_schema();
  params.required("total_num_steps", Schema::integer().range(1, kLargestCount));
  return schedule_schema("WarmupDecayLR", std::move(params), /*params_required=*/true);
}

WarmupDecayLrOptions WarmupDecayLrOptions::from_config(const ConfigNode& section) {
  WarmupDecayLrOptions o;
  const ConfigNode params = params_of(section);
  o.read_params(params);
  o.total_num_steps = params.at("total_num_steps").as_int();
  return o;
}

double WarmupDecayLrOptions::after_warmup(int64_t t) const {
  const double remaining = static_cast<double>(total_num_steps - t);
  const double span = std::max(1.0, static_cast<double>(total_num_steps - warmup.steps()));
  return std::max(0.0, remaining / span);
}

std::string WarmupDecayLrOptions::after_warmup_text() const {
  return ", linear decay to 0 at step " + std::to_string(total_num_steps);
}

// --- WarmupCosineLR ---------------------------------------------------------------------------

Schema WarmupCosineLrOptions::schema() {
  Schema params = Schema::map()
                      .required("total_num_steps", Schema::integer().range(1, kLargestCount))
                      .optional("warmup_min_ratio", non_negative())
                      .optional("cos_min_ratio", non_negative());
  return schedule_schema("WarmupCosineLR", std::move(params), /*params_required=*/true);
}

WarmupCosineLrOptions WarmupCosineLrOptions::from_config(const ConfigNode& section) {
  WarmupCosineLrOptions o;
  const ConfigNode params = params_of(section);
  o.total_num_steps = params.at("total_num_steps").as_int();
  o.warmup_min_ratio = params.get<double>("warmup_min_ratio", o.warmup_min_ratio);
  o.cos_min_ratio = params.get<double>("cos_min_ratio", o.cos_min_ratio);
  read_warmup(params, o.warmup);
  return o;
}

double WarmupCosineLrOptions::ratio(int64_t t) const {
  if (t < 0) return 0.0;
  if (t < warmup.steps()) {
    const double ratio_delta = 1. - warmup_min_ratio;
    return warmup_min_ratio + warmup.gamma(t) * ratio_delta;
  }
  // Original behaviour: the cosine index starts at 1, so the first value after
  // warm-up is already below 1, and nothing clamps it past total_num_steps.
  const double real_last_step = static_cast<double>(t - warmup.steps() + 1);
  const double real_total_steps = static_cast<double>(total_num_steps - warmup.steps());
  const double ratio_delta = 1. - cos_min_ratio;
  const double cosine = (1 + std::cos(kPi * real_last_step / real_total_steps)) / 2;
  return std::max(0.0, cos_min_ratio + ratio_delta * cosine);
}

double WarmupCosineLrOptions::group_lr(const ScheduledGroup& group, int64_t t) const {
  return group.base_lr * ratio(t);
}

std::string WarmupCosineLrOptions::describe() const {
  std::ostringstream out;
  out << "DeepSpeed " << type() << " (" << warmup_text(warmup) << " from ratio " << warmup_min_ratio
      << ", cosine to ratio " << cos_min_ratio << " at step " << total_num_steps
      << "; each group scaled from its own lr)";
  return out.str();
}

std::shared_ptr<const DeepSpeedScheduleOptions> WarmupCosineLrOptions::with_lrs_scaled(
    double /*factor*/, std::string& /*note*/) const {
  return nullptr;
}

const Registry<DeepSpeedScheduleOptions>& deepspeed_schedule_registry() {
  using ScheduleRegistry = Registry<DeepSpeedScheduleOptions>;
  static const ScheduleRegistry registry(
      "DeepSpeed scheduler",
      {{"WarmupLR", ScheduleRegistry::entry<WarmupLrOptions>()},
       {"WarmupDecayLR", ScheduleRegistry::entry<WarmupDecayLrOptions>()},
       {"WarmupCosineLR", ScheduleRegistry::entry<WarmupCosineLrOptions>()}});
  return registry;
}

// --- the scheduler ----------------------------------------------------------------------------

DeepSpeedSchedule::DeepSpeedSchedule(std::shared_ptr<const DeepSpeedScheduleOptions> options,
                                     std::vector<ScheduledGroup> groups)
    : options_(std::move(options)), groups_(std::move(groups)) {
  update();
}

void DeepSpeedSchedule::update() {
  lrs_.clear();
  for (const ScheduledGroup& group : groups_) {
    lrs_.push_back(options_->group_lr(group, last_batch_iteration_));
  }
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

}  // namespace olv2
