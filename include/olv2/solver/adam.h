#pragma once
// torch's Adam and AdamW as `optimizer.type: Adam` / `AdamW`.
#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "olv2/solver/optimizer.h"

namespace olv2 {

// Adam-family settings. `decoupled_weight_decay` true is AdamW (θ ← θ·(1 − lr·wd) before the
// Adam update); false is Adam with L2 regularisation (wd·θ added to the gradient).
struct AdamOptions : OptimizerOptions {
  std::array<double, 2> betas{0.9, 0.999};
  double eps = 1e-8;
  bool amsgrad = false;
  bool decoupled_weight_decay = true;

  // torch.optim.AdamW's defaults.
  AdamOptions() {
    type = "AdamW";
    weight_decay = 1e-2;
  }
  // `type: AdamW` or `type: Adam` (lr, weight_decay, betas, eps, amsgrad, paramwise_cfg), with
  // torch's defaults for each (weight decay 0.01 and 0).
  static Schema schema(const std::string& type);
  static AdamOptions from_config(const ConfigNode& section);

  std::vector<std::pair<std::string, std::vector<double>>> own_settings() const override;
  std::shared_ptr<OptimizerOptions> copy() const override {
    return std::make_shared<AdamOptions>(*this);
  }
  // `step`, `exp_avg`, `exp_avg_sq` and, with amsgrad, `max_exp_avg_sq`; groups: `lr`, `betas`,
  // `eps`, `weight_decay`, `amsgrad`.
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
