#include "olv2/engine/hooks/optimizer_hook.h"

#include "olv2/engine/train_context.h"

namespace olv2 {

OptimizerHook::OptimizerHook(std::optional<GradClipOptions> clip) : clip_(clip) {}

void OptimizerHook::after_backward(TrainContext& context) {
  context.step.outcome = context.optimizer->step(clip_, context.iteration + 1);
  context.optimizer->zero_grad();
}

}  // namespace olv2
