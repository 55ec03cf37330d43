#include "olv2/engine/hooks/iter_timer_hook.h"

#include <ATen/ATen.h>

#include <chrono>
#include <cmath>

#include "olv2/engine/train_context.h"
#include "olv2/util/elapsed.h"
#include "olv2/util/peak_memory.h"

namespace olv2 {

namespace {

// The logged losses are the mean over the ranks, as mmdet's _parse_losses logs them.
void average_over_ranks(StepState& step, Collective& collective) {
  std::vector<double> values;
  for (const auto& [name, value] : step.terms) values.push_back(value);
  values.push_back(step.loss);
  std::vector<at::Tensor> tensors = {at::tensor(values, at::kDouble)};
  collective.all_reduce_sum(tensors);
  const at::Tensor mean = tensors[0] / static_cast<double>(collective.world_size());
  for (size_t i = 0; i < step.terms.size(); ++i) step.terms[i].second = mean[i].item<double>();
  step.loss = mean[static_cast<int64_t>(step.terms.size())].item<double>();
}

}  // namespace

void IterTimerHook::before_epoch(TrainContext& context) {
  // mmcv clears the buffer at every epoch start: an interval never spans two epochs.
  context.log_buffer.clear();
  context.log_due = false;
}

void IterTimerHook::before_step(TrainContext& context) {
  if (context.log_due) {
    context.log_buffer.clear_output();
    context.log_due = false;
  }
}

void IterTimerHook::after_step(TrainContext& context) {
  StepState& step = context.step;
  step.time = seconds_since(step.start);
  step_seconds_ += step.time;
  ++steps_;
  const int64_t remaining = context.max_epochs * context.steps_per_epoch - context.iteration;
  context.eta_seconds = step_seconds_ / static_cast<double>(steps_) *
                        static_cast<double>(std::max<int64_t>(remaining, 0));

  if (context.collective != nullptr && context.collective->world_size() > 1) {
    average_over_ranks(step, *context.collective);
  }
  LogBuffer& buffer = context.log_buffer;
  buffer.update("data_time", step.data_time);
  for (const auto& [name, value] : step.terms) buffer.update(name, value);
  buffer.update("loss", step.loss);
  if (std::isfinite(step.outcome.grad_norm)) buffer.update("grad_norm", step.outcome.grad_norm);
  buffer.update("time", step.time);
  if ((step.in_epoch + 1) % log_interval_ == 0) {
    buffer.average(static_cast<size_t>(log_interval_));
    context.memory_mb = peak_memory_mb(context.device);
    context.memory_reserved_mb = peak_reserved_memory_mb(context.device);
    context.log_due = true;
  }
}

Schema IterTimerHookOptions::schema() {
  return hook_schema("IterTimerHook",
                     Schema::map().optional("interval", Schema::integer().range(1, 1e9)));
}

IterTimerHookOptions IterTimerHookOptions::from_config(const ConfigNode& section) {
  IterTimerHookOptions options;
  options.priority = read_hook_priority(section, HookPriority::kLow);
  options.interval = section.get<int64_t>("interval", options.interval);
  return options;
}

std::unique_ptr<Hook> IterTimerHookOptions::build(const HookSite& /*site*/) const {
  return std::make_unique<IterTimerHook>(interval);
}

}  // namespace olv2
