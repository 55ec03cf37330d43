#pragma once
// torch's SGD as `optimizer.type: SGD`, the optimizer of mmdetection's own configs.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "olv2/solver/optimizer.h"

namespace olv2 {

// torch.optim.SGD's settings and defaults: momentum 0, dampening 0, weight decay 0 (added to
// the gradient), no Nesterov momentum.
struct SgdOptions : OptimizerOptions {
  double momentum = 0.0;
  double dampening = 0.0;
  bool nesterov = false;

  SgdOptions() { type = "SGD"; }
  // `type: SGD` (lr, momentum, dampening, weight_decay, nesterov, paramwise_cfg).
  static Schema schema();
  // An input error, as torch's, for Nesterov momentum without momentum or with dampening.
  static SgdOptions from_config(const ConfigNode& section);

  std::vector<std::pair<std::string, std::vector<double>>> own_settings() const override;
  std::shared_ptr<OptimizerOptions> copy() const override {
    return std::make_shared<SgdOptions>(*this);
  }
  // `momentum_buffer` once a step with momentum was taken, nothing without momentum; groups:
  // `lr`, `momentum`, `dampening`, `weight_decay`, `nesterov`, `maximize` (false).
  ParamStateEntries state_entries(const torch::optim::OptimizerParamState& state) const override;
  std::unique_ptr<torch::optim::OptimizerParamState> param_state(
      const ParamStateEntries& entries, const std::string& what) const override;
  std::vector<std::pair<std::string, PthValue>> group_settings(
      const torch::optim::OptimizerOptions& options) const override;

 protected:
  std::unique_ptr<torch::optim::OptimizerOptions> group_options(
      double group_lr, double group_weight_decay) const override;
  std::unique_ptr<torch::optim::Optimizer> build_torch(
      std::vector<torch::optim::OptimizerParamGroup> groups) const override;
};

}  // namespace olv2
