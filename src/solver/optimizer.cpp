#include "olv2/solver/optimizer.h"

#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>

#include "olv2/util/error.h"

namespace olv2 {
namespace {

std::unique_ptr<torch::optim::OptimizerOptions> group_options(const AdamOptions& options, double lr,
                                                              double weight_decay) {
  const std::tuple<double, double> betas{options.betas[0], options.betas[1]};
  if (options.decoupled_weight_decay) {
    return std::make_unique<torch::optim::AdamWOptions>(torch::optim::AdamWOptions(lr)
                                                            .betas(betas)
                                                            .eps(options.eps)
                                                            .weight_decay(weight_decay)
                                                            .amsgrad(options.amsgrad));
  }
  return std::make_unique<torch::optim::AdamOptions>(torch::optim::AdamOptions(lr)
                                                         .betas(betas)
                                                         .eps(options.eps)
                                                         .weight_decay(weight_decay)
                                                         .amsgrad(options.amsgrad));
}

}  // namespace

std::unique_ptr<torch::optim::Optimizer> build_optimizer(const std::vector<ParamGroup>& groups,
                                                         const AdamOptions& options) {
  if (groups.empty()) {
    throw runtime_error("optimizer " + options.type + ": the model has no trainable parameters");
  }
  std::vector<torch::optim::OptimizerParamGroup> torch_groups;
  torch_groups.reserve(groups.size());
  for (const ParamGroup& group : groups) {
    torch_groups.emplace_back(group.params, group_options(options, group.lr, group.weight_decay));
  }
  if (options.decoupled_weight_decay) {
    auto defaults = torch::optim::AdamWOptions(options.lr)
                        .betas({options.betas[0], options.betas[1]})
                        .eps(options.eps)
                        .weight_decay(options.weight_decay)
                        .amsgrad(options.amsgrad);
    return std::make_unique<torch::optim::AdamW>(std::move(torch_groups), defaults);
  }
  auto defaults = torch::optim::AdamOptions(options.lr)
                      .betas({options.betas[0], options.betas[1]})
                      .eps(options.eps)
                      .weight_decay(options.weight_decay)
                      .amsgrad(options.amsgrad);
  return std::make_unique<torch::optim::Adam>(std::move(torch_groups), defaults);
}

std::vector<double> group_lrs(const torch::optim::Optimizer& optimizer) {
  std::vector<double> lrs;
  for (const auto& group : optimizer.param_groups()) lrs.push_back(group.options().get_lr());
  return lrs;
}

void set_group_lrs(torch::optim::Optimizer& optimizer, const std::vector<double>& lrs) {
  auto& groups = optimizer.param_groups();
  if (lrs.size() != groups.size()) {
    throw runtime_error("learning-rate schedule gives " + std::to_string(lrs.size()) +
                        " values for " + std::to_string(groups.size()) + " param groups");
  }
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(lrs[i]);
}

}  // namespace olv2
