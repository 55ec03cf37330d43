#pragma once
// The plain MLP of Linears and ReLUs the relation heads score object pairs with.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

namespace olv2 {

// `num_layers` Linears (keys `layers.i.weight`, `layers.i.bias`) with ReLU
// between them: in -> hidden -> ... -> hidden -> out.
class MlpImpl : public torch::nn::Module {
 public:
  MlpImpl(int64_t in_channels, int64_t hidden_channels, int64_t out_channels, int64_t num_layers);
  at::Tensor forward(at::Tensor x);

 private:
  torch::nn::ModuleList layers_{nullptr};
};
TORCH_MODULE(Mlp);

}  // namespace olv2
