#include "olv2/models/heads/lane_transformer_init.h"

#include <torch/torch.h>

#include "olv2/models/layers/multi_scale_deformable_attention.h"

namespace olv2 {

void init_lane_transformer(torch::nn::Module& transformer, torch::nn::Linear& reference_points) {
  torch::NoGradGuard no_grad;
  for (at::Tensor& parameter : transformer.parameters()) {
    if (parameter.dim() > 1) torch::nn::init::xavier_uniform_(parameter);
  }
  for (const auto& module : transformer.modules(/*include_self=*/false)) {
    if (auto* attention = module->as<MultiScaleDeformableAttentionImpl>()) {
      attention->reset_parameters();
    }
  }
  torch::nn::init::xavier_uniform_(reference_points->weight);
  reference_points->bias.zero_();
}

}  // namespace olv2
