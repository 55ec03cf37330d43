#pragma once
// mmcv's ConvModule reduced to its conv, so that the necks' parameter names match the original's.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/pimpl.h>

namespace olv2 {

// mmcv's ConvModule without norm and activation: a conv with bias registered as
// `conv`, so that its parameters are named `<name>.conv.weight` / `.conv.bias`
// as in the original.
class ConvModuleImpl : public torch::nn::Module {
 public:
  explicit ConvModuleImpl(const torch::nn::Conv2dOptions& options)
      : conv(register_module("conv", torch::nn::Conv2d(options))) {}
  at::Tensor forward(const at::Tensor& x) { return conv(x); }

  torch::nn::Conv2d conv;
};
TORCH_MODULE(ConvModule);

}  // namespace olv2
