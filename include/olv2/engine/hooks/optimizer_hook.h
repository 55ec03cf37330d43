#pragma once
#include <optional>

#include "olv2/engine/dist/gradient_sync.h"
#include "olv2/engine/hook.h"
#include "olv2/solver/grad_clip.h"

namespace olv2 {

// The optimizer step at the step boundary (mmcv's OptimizerHook / Fp16OptimizerHook):
// apply_optimizer_step (gradient sync, unscale, overflow check, clip, step) with the context's
// gradient sync and ZeRO optimizer, then zero the gradients for the next step.
class OptimizerHook : public Hook {
 public:
  explicit OptimizerHook(std::optional<GradClipOptions> clip);
  void after_backward(TrainContext& context) override;

 private:
  std::optional<GradClipOptions> clip_;
  SingleProcessGradientSync one_process_;
};

}  // namespace olv2
