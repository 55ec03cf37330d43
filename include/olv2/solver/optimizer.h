#pragma once
// The Adam and AdamW optimizers of a run over its param groups, and their learning rates.
#include <torch/optim/optimizer.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "olv2/solver/param_groups.h"

namespace olv2 {

// Adam-family settings. `decoupled_weight_decay` true is AdamW (θ ← θ·(1 −
// lr·wd) before the Adam update); false is Adam with L2 regularisation (wd·θ
// added to the gradient).
struct AdamOptions {
  std::string type = "AdamW";  // as named in the config: "AdamW" or "Adam"
  double lr = 1e-3;
  double weight_decay = 1e-2;  // torch.optim.AdamW's default
  std::array<double, 2> betas{0.9, 0.999};
  double eps = 1e-8;
  bool amsgrad = false;
  bool decoupled_weight_decay = true;
};

// A torch optimizer with one param group per ParamGroup (same order), each
// carrying the group's lr and weight decay.
std::unique_ptr<torch::optim::Optimizer> build_optimizer(const std::vector<ParamGroup>& groups,
                                                         const AdamOptions& options);

// The current lr of every param group, in order.
std::vector<double> group_lrs(const torch::optim::Optimizer& optimizer);

// Sets the lr of every param group; `lrs` has one value per group.
void set_group_lrs(torch::optim::Optimizer& optimizer, const std::vector<double>& lrs);

}  // namespace olv2
