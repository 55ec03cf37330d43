#include "support/training_step.h"

#include <torch/torch.h>

namespace olv2::test {

StepResult training_step(DetectorImpl& model, const Batch& batch, const c10::Device& device,
                         AutocastState autocast) {
  model.to(device);
  model.train();
  model.set_dropout(0.0);
  model.zero_grad();
  const Batch on_device = batch.to(device, /*non_blocking=*/false);
  LossMap losses;
  {
    const AutocastGuard guard(device.type(), autocast);
    losses = model.forward_train(on_device);
  }
  total_loss(losses).backward();
  StepResult result;
  for (const auto& [name, value] : losses) result.losses[name] = value.item<double>();
  for (const auto& item : model.named_parameters()) {
    if (item.value().grad().defined()) result.grads[item.key()] = item.value().grad().cpu();
  }
  return result;
}

}  // namespace olv2::test
