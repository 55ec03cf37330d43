#include "olv2/engine/optimizer/replicated_optimizer.h"

#include <utility>

#include "olv2/engine/checkpoint/optimizer_state.h"

namespace olv2 {

ReplicatedOptimizer::ReplicatedOptimizer(TrainableParams params,
                                         std::shared_ptr<const OptimizerOptions> options,
                                         const std::vector<ParamGroup>& groups,
                                         std::unique_ptr<GradientSync> sync,
                                         std::unique_ptr<LossScaler> scaler, int64_t rank)
    : TrainingOptimizer(std::move(params), std::move(scaler)),
      options_(std::move(options)),
      optimizer_(options_->build(groups)),
      sync_(std::move(sync)),
      rank_(rank) {}

ReplicatedOptimizer::~ReplicatedOptimizer() = default;

void ReplicatedOptimizer::zero_grad() { optimizer_->zero_grad(); }

std::optional<PthValue> ReplicatedOptimizer::state() {
  if (rank_ != 0) return std::nullopt;
  return optimizer_state_to_pth(*optimizer_, *options_);
}

void ReplicatedOptimizer::load_state(const PthValue& state) {
  optimizer_state_from_pth(*optimizer_, *options_, state);
}

std::string ReplicatedOptimizer::describe() const { return sync_->describe(); }

void ReplicatedOptimizer::before_backward(const at::Tensor& loss, bool last) {
  sync_->before_backward(loss, last);
}

SyncedGradients ReplicatedOptimizer::finish_synchronization() {
  return sync_->finish(params().tensors);
}

void ReplicatedOptimizer::update() { optimizer_->step(); }

}  // namespace olv2
