#pragma once

namespace olv2 {

struct TrainContext;

// One concern of training (LR schedule, optimizer step, checkpoints, a logger, evaluation,
// timing), called by the Trainer at the points of mmcv's Runner and detectron2's HookBase.
// At each point every hook runs in registration order; a hook reads and writes the shared
// TrainContext.
class Hook {
 public:
  virtual ~Hook() = default;
  virtual void before_run(TrainContext& /*context*/) {}
  virtual void before_epoch(TrainContext& /*context*/) {}
  // Before the first micro-batch of an optimizer step is run.
  virtual void before_step(TrainContext& /*context*/) {}
  // After the backward pass of the step's last micro-batch: the step boundary, where the
  // optimizer step happens.
  virtual void after_backward(TrainContext& /*context*/) {}
  // After the optimizer step; `context.iteration` already counts it.
  virtual void after_step(TrainContext& /*context*/) {}
  virtual void after_epoch(TrainContext& /*context*/) {}
  virtual void after_run(TrainContext& /*context*/) {}
};

}  // namespace olv2
