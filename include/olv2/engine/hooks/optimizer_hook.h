#pragma once
// The hook that takes the optimizer step at each step boundary, mmcv's OptimizerHook.
#include <optional>

#include "olv2/engine/hooks/hook.h"
#include "olv2/engine/hooks/hook_options.h"
#include "olv2/solver/grad_clip.h"

namespace olv2 {

// The optimizer step at the step boundary (mmcv's OptimizerHook / Fp16OptimizerHook): the
// run's optimizer steps (gradient sync, unscale, overflow check, clip, update; see
// TrainingOptimizer::step), then its gradients are zeroed for the next step.
class OptimizerHook : public Hook {
 public:
  explicit OptimizerHook(std::optional<GradClipOptions> clip);
  void after_backward(TrainContext& context) override;

 private:
  std::optional<GradClipOptions> clip_;
};

// `OptimizerHook` (priority ABOVE_NORMAL): no keys of its own; it clips as the run's settings
// say (`optimizer_config.grad_clip`, or the DeepSpeed JSON's `gradient_clipping`).
struct OptimizerHookOptions : HookOptions {
  static Schema schema();
  static OptimizerHookOptions from_config(const ConfigNode& section);
  std::unique_ptr<Hook> build(const HookSite& site) const override;
};

}  // namespace olv2
