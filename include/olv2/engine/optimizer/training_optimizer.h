#pragma once
// The optimizer of a training run as the loop and its hooks see it, whatever holds its state.
#include <ATen/core/Tensor.h>
#include <torch/optim/optimizer.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "olv2/engine/distributed/gradient_sync.h"
#include "olv2/engine/precision/loss_scaler.h"
#include "olv2/solver/grad_clip.h"
#include "olv2/util/pth/pth_value.h"

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

// The optimizer of a run, DeepSpeed's engine in shape: it owns the loss scaler (the backward
// scales, the step unscales), the meeting of the ranks' gradients and the optimizer state, so
// that the loop and its hooks never ask how the state is kept. Implemented by the replicated
// optimizer (every rank holds the whole state; gradients all-reduced) and by ZeRO stages 1 and
// 2 (each rank holds its part).
class TrainingOptimizer {
 public:
  // `params` in the optimizer's order; `scaler` null without fp16.
  TrainingOptimizer(TrainableParams params, std::unique_ptr<LossScaler> scaler);
  virtual ~TrainingOptimizer();
  TrainingOptimizer(const TrainingOptimizer&) = delete;
  TrainingOptimizer& operator=(const TrainingOptimizer&) = delete;

  // The backward of one micro-batch from its `loss` (times the loss scale under a scaler);
  // `last`: the step's last micro-batch, whose backward the ranks' gradients meet after.
  void backward(const at::Tensor& loss, bool last);

  // The step boundary after the accumulated backward passes, in the order of DDP with
  // PyTorch's GradScaler: the ranks' gradients meet (averaged, or this rank's part of them under
  // ZeRO stage 2); with a scaler, unscale and check for overflow (every rank sees the same
  // averaged gradients; parts are checked on every rank and the finding shared); clip the
  // global norm when `clip` is set (else only measure it); update the parameters. An overflow
  // skips the update and leaves weights and optimizer state untouched. Without a scaler a
  // non-finite gradient stops the run before it reaches the weights: a runtime error naming
  // `iteration` (1-based) and the first parameter whose gradient is not finite. The scaler's
  // update ends the step; gradients are left for zero_grad. Throws what the scaler's update
  // throws.
  StepOutcome step(const std::optional<GradClipOptions>& clip, int64_t iteration);
  // The step's gradient synchronisation on its own (step() runs it when it has not run since
  // the last step): the gradients the step will unscale, clip and apply.
  const SyncedGradients& synchronize();
  // Drops every gradient the optimizer holds.
  virtual void zero_grad() = 0;

  // The whole optimizer state in PyTorch's layout (optimizer_state_to_pth's). A collective: every
  // rank calls it; rank 0 gets the state, the other ranks nothing.
  virtual std::optional<PthValue> state() = 0;
  // Takes a whole state (optimizer_state_to_pth's layout, written by any world size or ZeRO
  // stage). Throws an input error naming what does not fit.
  virtual void load_state(const PthValue& state) = 0;

  // The learning rate of every param group, in order; the LR schedule sets them.
  std::vector<double> lrs() const;
  void set_lrs(const std::vector<double>& lrs);

  LossScaler* loss_scaler() const { return scaler_.get(); }
  const TrainableParams& params() const { return params_; }
  // How the ranks' gradients meet, for the run's log.
  virtual std::string describe() const = 0;

 protected:
  // Before each micro-batch's backward from `loss` (the scaled one).
  virtual void before_backward(const at::Tensor& /*loss*/, bool /*last*/) {}
  // Completes the step's communication.
  virtual SyncedGradients finish_synchronization() = 0;
  // Updates the parameters from the (averaged, unscaled, clipped) gradients.
  virtual void update() = 0;
  // The torch optimizer whose param groups carry the learning rates.
  virtual torch::optim::Optimizer& param_groups() = 0;
  virtual const torch::optim::Optimizer& param_groups() const = 0;

 private:
  TrainableParams params_;
  std::unique_ptr<LossScaler> scaler_;
  std::optional<SyncedGradients> synced_;  // this step's, once synchronize() ran
};

}  // namespace olv2
