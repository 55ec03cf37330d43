#pragma once
// The per-layer classification and regression branches of the lane heads (OpenLane-V2's
// LCDeformableDETRHead and TopoNet's TopoNetHead build them alike).
#include <ATen/core/Tensor.h>
#include <torch/nn/modules/container/modulelist.h>

#include <cstdint>

namespace olv2 {

// (Linear, LayerNorm, ReLU) x num_reg_fcs, then Linear to the classes: keys 0, 1, 3, 4, 6.
torch::nn::ModuleList lane_cls_branch(int64_t embed_dims, int64_t num_reg_fcs, int64_t num_classes);
// (Linear, ReLU) x num_reg_fcs, then Linear to the code: keys 0, 2, 4.
torch::nn::ModuleList lane_reg_branch(int64_t embed_dims, int64_t num_reg_fcs, int64_t code_size);
// Runs a branch in order; LayerNorm goes through compat::layer_norm so it works under autocast.
at::Tensor run_branch(const torch::nn::ModuleListImpl& branch, at::Tensor x);
// mmcv's `bias_init_with_prob(0.01)` on the last Linear of each classification branch.
void init_classification_prior(torch::nn::ModuleListImpl& cls_branches);

}  // namespace olv2
