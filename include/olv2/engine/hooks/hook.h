#pragma once
// One concern of training, called by the loop at mmcv's and detectron2's hook points.
#include <optional>

#include "olv2/util/pth/pth_value.h"

namespace olv2 {

struct TrainContext;

// mmcv's named hook priorities. At every hook point a hook of a smaller number runs first;
// hooks of one priority run in the order they were added.
struct HookPriority {
  static constexpr int kHighest = 0;
  static constexpr int kVeryHigh = 10;
  static constexpr int kHigh = 30;
  static constexpr int kAboveNormal = 40;
  static constexpr int kNormal = 50;
  static constexpr int kBelowNormal = 60;
  static constexpr int kLow = 70;
  static constexpr int kVeryLow = 90;
  static constexpr int kLowest = 100;
};

// One concern of training (LR schedule, optimizer step, checkpoints, a logger, evaluation,
// timing, or a `custom_hooks` entry), called by the Trainer at the points of mmcv's Runner and
// detectron2's HookBase. A hook reads and writes the shared TrainContext; it never calls
// another hook. What a resumed run needs of it, it gives as state().
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

  // The hook's entries of a checkpoint's `meta.hook_msgs` (a dict), where mmcv's hooks keep what
  // a resumed run needs of them (its EvalHook: `best_score`, `best_ckpt`); none: it keeps
  // nothing. Every checkpoint of the run holds them.
  virtual std::optional<PthValue> state() const { return std::nullopt; }
  // A resumed checkpoint's whole `meta.hook_msgs`: the hook takes its own entries. Throws an
  // input error naming an entry that does not fit.
  virtual void load_state(const PthValue& /*hook_msgs*/) {}
};

}  // namespace olv2
