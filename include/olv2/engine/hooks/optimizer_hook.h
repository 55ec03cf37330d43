#pragma once
#include <memory>
#include <optional>

#include "olv2/engine/dist/gradient_sync.h"
#include "olv2/engine/hook.h"
#include "olv2/solver/grad_clip.h"

namespace olv2 {

// The optimizer step at the step boundary (mmcv's OptimizerHook / Fp16OptimizerHook):
// apply_optimizer_step (unscale, overflow check, gradient sync, clip, step), then zero the
// gradients for the next step.
class OptimizerHook : public Hook {
 public:
  OptimizerHook(std::optional<GradClipOptions> clip, std::unique_ptr<GradientSync> sync);
  void after_backward(TrainContext& context) override;

 private:
  std::optional<GradClipOptions> clip_;
  std::unique_ptr<GradientSync> sync_;
};

}  // namespace olv2
