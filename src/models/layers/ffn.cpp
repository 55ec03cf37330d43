#include "olv2/models/layers/ffn.h"

#include <torch/torch.h>

#include "olv2/util/error.h"

namespace olv2 {

FfnImpl::FfnImpl(const FfnOptions& options) : options_(options) {
  if (options.num_fcs < 2) {
    throw input_error("FFN: num_fcs must be at least 2, got " + std::to_string(options.num_fcs));
  }
  torch::nn::ModuleList layers;
  int64_t in_channels = options.embed_dims;
  for (int64_t i = 0; i + 1 < options.num_fcs; ++i) {
    layers->push_back(
        torch::nn::Sequential(torch::nn::Linear(in_channels, options.feedforward_channels),
                              torch::nn::ReLU(), torch::nn::Dropout(options.ffn_drop)));
    in_channels = options.feedforward_channels;
  }
  layers->push_back(torch::nn::Linear(options.feedforward_channels, options.embed_dims));
  layers->push_back(torch::nn::Dropout(options.ffn_drop));
  layers_ = register_module("layers", layers);
}

void FfnImpl::set_dropout(double p) {
  options_.ffn_drop = p;
  for (auto& module : layers_->modules(/*include_self=*/false)) {
    if (auto* dropout = module->as<torch::nn::Dropout>()) dropout->options.p(p);
  }
}

at::Tensor FfnImpl::forward(const at::Tensor& x, const at::Tensor& identity) {
  at::Tensor out = x;
  for (const auto& layer : *layers_) {
    if (auto* block = layer->as<torch::nn::Sequential>()) {
      out = block->forward(out);
    } else if (auto* linear = layer->as<torch::nn::Linear>()) {
      out = linear->forward(out);
    } else {
      out = layer->as<torch::nn::Dropout>()->forward(out);
    }
  }
  if (!options_.add_identity) return out;
  return (identity.defined() ? identity : x) + out;
}

}  // namespace olv2
