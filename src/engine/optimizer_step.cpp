#include "olv2/engine/optimizer_step.h"

#include <limits>

#include "olv2/solver/optimizer.h"

namespace olv2 {

StepOutcome finish_optimizer_step(torch::optim::Optimizer& optimizer,
                                  const std::vector<at::Tensor>& params, LrScheduler& scheduler,
                                  LossScaler* scaler, const std::optional<GradClipOptions>& clip) {
  StepOutcome outcome;
  outcome.lrs = scheduler.lrs();
  set_group_lrs(optimizer, outcome.lrs);
  if (scaler != nullptr) {
    outcome.loss_scale = scaler->scale();
    if (scaler->unscale_and_check(params)) {
      outcome.applied = false;
      outcome.grad_norm = std::numeric_limits<double>::quiet_NaN();
      scheduler.end_step(false);
      scaler->update(true);
      return outcome;
    }
  }
  GradClipOptions measure_only;
  measure_only.max_norm = std::numeric_limits<double>::infinity();
  outcome.grad_norm = clip_grad_norm(params, clip ? *clip : measure_only);
  optimizer.step();
  scheduler.end_step(true);
  if (scaler != nullptr) scaler->update(false);
  return outcome;
}

}  // namespace olv2
