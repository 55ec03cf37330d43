#pragma once
// The optimizer whose whole state every rank holds, as with DDP.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "olv2/engine/distributed/gradient_sync.h"
#include "olv2/engine/optimizer/training_optimizer.h"
#include "olv2/solver/optimizer.h"

namespace olv2 {

// A torch optimizer over the whole parameters on every rank, the ranks' gradients meeting
// through `sync` (one process: SingleProcessGradientSync; several: the all-reduce). Every rank
// steps the same state; rank 0 gives it to checkpoints.
class ReplicatedOptimizer : public TrainingOptimizer {
 public:
  // The optimizer `options` builds over `groups` (whose tensors are `params`'); `rank` of this
  // process.
  ReplicatedOptimizer(TrainableParams params, std::shared_ptr<const OptimizerOptions> options,
                      const std::vector<ParamGroup>& groups, std::unique_ptr<GradientSync> sync,
                      std::unique_ptr<LossScaler> scaler, int64_t rank = 0);
  ~ReplicatedOptimizer() override;

  void zero_grad() override;
  std::optional<PthValue> state() override;
  void load_state(const PthValue& state) override;
  std::string describe() const override;

 protected:
  void before_backward(const at::Tensor& loss, bool last) override;
  SyncedGradients finish_synchronization() override;
  void update() override;
  torch::optim::Optimizer& param_groups() override { return *optimizer_; }
  const torch::optim::Optimizer& param_groups() const override { return *optimizer_; }

 private:
  std::shared_ptr<const OptimizerOptions> options_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::unique_ptr<GradientSync> sync_;
  int64_t rank_;
};

}  // namespace olv2
