#include "olv2/engine/trainer.h"

#include <torch/torch.h>

#include <cmath>
#include <csignal>

#include "olv2/engine/logging/python_format.h"
#include "olv2/util/elapsed.h"
#include "olv2/util/error.h"
#include "olv2/util/fault_injection.h"
#include "olv2/util/splitmix64.h"
#include "olv2/util/stop_request.h"

namespace olv2 {

namespace {

using Clock = std::chrono::steady_clock;

// Model randomness (dropout) of step `step` derives from (seed, step), so a resumed run draws
// exactly what the uninterrupted run drew.
uint64_t step_seed(uint64_t seed, int64_t step) {
  return splitmix64_finalize(seed * kSplitMix64Increment + static_cast<uint64_t>(step) +
                             0x632BE59BD9B4E019ULL);
}

}  // namespace

Trainer::Trainer(TrainContext& context, DataLoader& loader, TrainStepOptions options,
                 HookList hooks)
    : context_(context), loader_(loader), options_(options), hooks_(std::move(hooks)) {
  context_.hooks = &hooks_;
}

void Trainer::run() {
  hooks_.call(&Hook::before_run, context_);
  for (context_.epoch = context_.start_epoch;
       context_.epoch < context_.max_epochs && !context_.stop_training; ++context_.epoch) {
    run_epoch();
  }
  hooks_.call(&Hook::after_run, context_);
}

void Trainer::run_epoch() {
  if (context_.epoch != context_.start_epoch) {
    context_.epoch_batches = 0;
    context_.epoch_position = 0;
  }
  context_.model->train();
  // A mid-epoch resume starts at the sampler position it stopped at, without loading the
  // batches before it.
  loader_.start_epoch(context_.epoch, context_.epoch_position);
  hooks_.call(&Hook::before_epoch, context_);
  for (;;) {
    const Clock::time_point start = Clock::now();
    std::optional<Batch> batch = loader_.next();
    if (!batch) break;
    context_.step = StepState();
    context_.step.start = start;
    context_.step.data_time = seconds_since(start);
    run_step(std::move(batch));
  }
  hooks_.call(&Hook::after_epoch, context_);
}

void Trainer::run_step(std::optional<Batch> batch) {
  StepState& step = context_.step;
  const int64_t accumulation = context_.identity.accumulation_steps;
  step.in_epoch = context_.epoch_batches / accumulation;
  step.micro_batches = std::max<int64_t>(
      1, std::min(accumulation, context_.micro_batches_per_epoch - step.in_epoch * accumulation));
  torch::manual_seed(step_seed(options_.seed, context_.iteration));
  hooks_.call(&Hook::before_step, context_);
  for (int64_t done = 0; batch;) {
    run_micro_batch(*batch, done + 1 == step.micro_batches);
    step.last_idx = context_.epoch_batches++;
    context_.epoch_position = loader_.position();
    // Batches skipped for bad frames (data.skip_bad_frames) can leave the epoch's last step
    // short: it applies what it accumulated rather than carry gradients into the next epoch.
    if (++done == step.micro_batches) break;
    const Clock::time_point fetch = Clock::now();
    batch = loader_.next();
    step.data_time += seconds_since(fetch);
  }
  hooks_.call(&Hook::after_backward, context_);
  ++context_.iteration;
  hooks_.call(&Hook::after_step, context_);
  stop_if_requested();
}

void Trainer::stop_if_requested() {
  int signal = stop_request_signal();
  // Every rank stops after the same step, or one would wait for the others forever.
  if (context_.collective != nullptr) {
    std::vector<at::Tensor> flag = {torch::full({1}, static_cast<double>(signal), torch::kDouble)};
    context_.collective->all_reduce_sum(flag);
    if (signal == 0 && flag[0].item<double>() > 0.0) signal = SIGTERM;
  }
  if (signal == 0) return;
  throw Error(std::string("stopped by ") + (signal == SIGINT ? "SIGINT" : "SIGTERM") +
                  " after iter " + std::to_string(context_.iteration) +
                  "; the checkpoints written so far are complete (resume with --resume-from)",
              static_cast<ExitStatus>(128 + signal));
}

void Trainer::run_micro_batch(const Batch& host_batch, bool last) {
  const Batch batch = host_batch.to(context_.device, context_.device.is_cuda());
  LossMap losses;
  {
    std::optional<AutocastGuard> autocast;
    if (options_.autocast) autocast.emplace(context_.device.type(), *options_.autocast);
    losses = context_.model->forward_train(batch);
  }
  StepState& step = context_.step;
  const at::Tensor loss = total_loss(losses) / static_cast<double>(step.micro_batches);
  const double loss_value = loss.item<double>();
  if (!std::isfinite(loss_value) && context_.optimizer->loss_scaler() == nullptr) {
    std::string terms;
    for (const auto& [name, value] : losses) {
      terms += (terms.empty() ? "" : ", ") + name + " " + python_float_repr(value.item<double>());
    }
    throw runtime_error("non-finite loss " + python_float_repr(loss_value) + " at iter " +
                        std::to_string(context_.iteration + 1) + " (" + terms + ")");
  }
  context_.optimizer->backward(loss, last);
  fault_point("step");
  if (step.terms.empty()) {
    for (const auto& [name, value] : losses) step.terms.emplace_back(name, 0.0);
  }
  for (size_t i = 0; i < losses.size() && i < step.terms.size(); ++i) {
    step.terms[i].second +=
        losses[i].second.item<double>() / static_cast<double>(step.micro_batches);
  }
  step.loss += loss_value;
}

}  // namespace olv2
