#pragma once
#include <ATen/core/Tensor.h>
#include <torch/optim/optimizer.h>

#include <optional>
#include <vector>

#include "olv2/engine/loss_scaler.h"
#include "olv2/solver/grad_clip.h"
#include "olv2/solver/lr_scheduler.h"

namespace olv2 {

// What happened at one optimizer-step boundary.
struct StepOutcome {
  bool applied = true;      // false: skipped for a gradient overflow
  double grad_norm = 0.0;   // global norm before clipping (unscaled); nan when skipped
  double loss_scale = 1.0;  // the scale the step's backward used (1 without a scaler)
  std::vector<double> lrs;  // the param-group lrs the step used
};

// The step boundary after the accumulated backward passes (gradients already
// averaged across ranks): writes the scheduler's lrs into the optimizer; with a
// scaler, unscales and checks the gradients and, on overflow, skips the
// optimizer step and does not advance the scheduler; clips the global norm when
// `clip` is set (else only measures it); steps the optimizer; ends the step in
// the scheduler and the scaler. Gradients are left for the caller to zero.
// Throws what the scaler's update throws.
StepOutcome finish_optimizer_step(torch::optim::Optimizer& optimizer,
                                  const std::vector<at::Tensor>& params, LrScheduler& scheduler,
                                  LossScaler* scaler, const std::optional<GradClipOptions>& clip);

}  // namespace olv2
