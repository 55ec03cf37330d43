#include "olv2/models/layers/mlp.h"

#include <torch/torch.h>

#include "olv2/util/error.h"

namespace olv2 {

MlpImpl::MlpImpl(int64_t in_channels, int64_t hidden_channels, int64_t out_channels,
                 int64_t num_layers) {
  if (num_layers < 1) {
    throw input_error("MLP: num_layers must be at least 1, got " + std::to_string(num_layers));
  }
  layers_ = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < num_layers; ++i) {
    const int64_t in = i == 0 ? in_channels : hidden_channels;
    const int64_t out = i + 1 == num_layers ? out_channels : hidden_channels;
    layers_->push_back(torch::nn::Linear(in, out));
  }
}

at::Tensor MlpImpl::forward(at::Tensor x) {
  const size_t count = layers_->size();
  for (size_t i = 0; i < count; ++i) {
    x = layers_[i]->as<torch::nn::Linear>()->forward(x);
    if (i + 1 < count) x = torch::relu(x);
  }
  return x;
}

}  // namespace olv2
