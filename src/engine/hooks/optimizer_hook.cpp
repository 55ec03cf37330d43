#include "olv2/engine/hooks/optimizer_hook.h"

#include "olv2/engine/train_context.h"

namespace olv2 {

OptimizerHook::OptimizerHook(std::optional<GradClipOptions> clip) : clip_(clip) {}

void OptimizerHook::after_backward(TrainContext& context) {
  context.step.outcome = context.optimizer->step(clip_, context.iteration + 1);
  context.optimizer->zero_grad();
}

Schema OptimizerHookOptions::schema() { return hook_schema("OptimizerHook"); }

OptimizerHookOptions OptimizerHookOptions::from_config(const ConfigNode& section) {
  OptimizerHookOptions options;
  options.priority = read_hook_priority(section, HookPriority::kAboveNormal);
  return options;
}

std::unique_ptr<Hook> OptimizerHookOptions::build(const HookSite& site) const {
  return std::make_unique<OptimizerHook>(site.grad_clip);
}

}  // namespace olv2
