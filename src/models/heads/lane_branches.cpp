#include "olv2/models/heads/lane_branches.h"

#include <torch/torch.h>

#include <cmath>

#include "olv2/util/compat.h"

namespace olv2 {

torch::nn::ModuleList lane_cls_branch(int64_t embed_dims, int64_t num_reg_fcs,
                                      int64_t num_classes) {
  torch::nn::ModuleList branch;
  for (int64_t i = 0; i < num_reg_fcs; ++i) {
    branch->push_back(torch::nn::Linear(embed_dims, embed_dims));
    branch->push_back(torch::nn::LayerNorm(torch::nn::LayerNormOptions({embed_dims})));
    branch->push_back(torch::nn::ReLU());
  }
  branch->push_back(torch::nn::Linear(embed_dims, num_classes));
  return branch;
}

torch::nn::ModuleList lane_reg_branch(int64_t embed_dims, int64_t num_reg_fcs, int64_t code_size) {
  torch::nn::ModuleList branch;
  for (int64_t i = 0; i < num_reg_fcs; ++i) {
    branch->push_back(torch::nn::Linear(embed_dims, embed_dims));
    branch->push_back(torch::nn::ReLU());
  }
  branch->push_back(torch::nn::Linear(embed_dims, code_size));
  return branch;
}

at::Tensor run_branch(const torch::nn::ModuleListImpl& branch, at::Tensor x) {
  for (const auto& module : branch) {
    if (auto* linear = module->as<torch::nn::LinearImpl>()) {
      x = linear->forward(x);
    } else if (auto* norm = module->as<torch::nn::LayerNormImpl>()) {
      x = compat::layer_norm(x, norm->weight, norm->bias, norm->options.eps());
    } else {
      x = torch::relu(x);
    }
  }
  return x;
}

void init_classification_prior(torch::nn::ModuleListImpl& cls_branches) {
  torch::NoGradGuard no_grad;
  const double prior_bias = -std::log((1 - 0.01) / 0.01);
  for (const auto& branch : cls_branches) {
    const auto& layers = *branch->as<torch::nn::ModuleList>();
    layers[layers.size() - 1]->as<torch::nn::LinearImpl>()->bias.fill_(prior_bias);
  }
}

}  // namespace olv2
