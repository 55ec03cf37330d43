#include "olv2/engine/hooks/optimizer_hook.h"

#include <torch/optim/optimizer.h>

#include "olv2/engine/train_context.h"

namespace olv2 {

OptimizerHook::OptimizerHook(std::optional<GradClipOptions> clip,
                             std::unique_ptr<GradientSync> sync)
    : clip_(clip), sync_(std::move(sync)) {}

void OptimizerHook::after_backward(TrainContext& context) {
  context.step.outcome = apply_optimizer_step(*context.optimizer, context.params, context.scaler,
                                              clip_, *sync_, context.iteration + 1);
  context.optimizer->zero_grad();
}

}  // namespace olv2
