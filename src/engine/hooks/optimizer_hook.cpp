#include "olv2/engine/hooks/optimizer_hook.h"

#include <torch/optim/optimizer.h>

#include "olv2/engine/train_context.h"

namespace olv2 {

OptimizerHook::OptimizerHook(std::optional<GradClipOptions> clip) : clip_(clip) {}

void OptimizerHook::after_backward(TrainContext& context) {
  GradientSync& sync = context.gradient_sync != nullptr ? *context.gradient_sync : one_process_;
  context.step.outcome = apply_optimizer_step(*context.optimizer, context.params, context.scaler,
                                              clip_, sync, context.iteration + 1, context.zero);
  if (context.zero != nullptr) {
    context.zero->zero_grad();
  } else {
    context.optimizer->zero_grad();
  }
}

}  // namespace olv2
