#pragma once
#include <ATen/core/Tensor.h>
#include <torch/optim/optimizer.h>

#include <optional>
#include <string>
#include <vector>

#include "olv2/engine/dist/gradient_sync.h"
#include "olv2/engine/dist/zero_optimizer.h"
#include "olv2/engine/precision/loss_scaler.h"
#include "olv2/solver/grad_clip.h"

namespace olv2 {

// The parameters the optimizer updates, in its order, with their state-dict names.
struct TrainableParams {
  std::vector<std::string> names;
  std::vector<at::Tensor> tensors;
};

// What happened at one optimizer-step boundary.
struct StepOutcome {
  bool applied = true;      // false: skipped for a gradient overflow
  double grad_norm = 0.0;   // global norm before clipping (unscaled); nan when skipped
  double loss_scale = 1.0;  // the scale the step's backward used (1 without a scaler)
};

// The step boundary after the accumulated backward passes, in the order of DDP with PyTorch's
// GradScaler: the gradient-sync point (`sync.finish`: the ranks' gradients averaged, or this
// rank's part of them under ZeRO stage 2); with a scaler, unscale and check for overflow
// (every rank sees the same averaged gradients; parts are checked on every rank and the
// finding shared); clip the global norm when `clip` is set (else only measure it); step —
// `zero`'s when the optimizer state is sharded, else `optimizer`'s. An overflow skips the step
// and leaves weights and optimizer state untouched. Without a scaler a non-finite gradient stops
// the run before the optimizer writes it into the weights: a runtime error naming `iteration`
// (1-based) and the first parameter whose gradient is not finite. The scaler's update ends the
// step; gradients are left for the caller to zero. Throws what the scaler's update throws.
StepOutcome apply_optimizer_step(torch::optim::Optimizer& optimizer, const TrainableParams& params,
                                 LossScaler* scaler, const std::optional<GradClipOptions>& clip,
                                 GradientSync& sync, int64_t iteration,
                                 ZeroOptimizer* zero = nullptr);

}  // namespace olv2
