#pragma once
// The residual blocks of mmdet's ResNet: BasicBlock, Bottleneck and their downsample branch.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

#include "olv2/models/layers/batch_norm_2d.h"

namespace olv2 {

// What the residual blocks of mmdet's ResNet share.
struct ResBlockOptions {
  int64_t inplanes = 64;
  int64_t planes = 64;  // output channels = planes * expansion
  int64_t stride = 1;
  int64_t dilation = 1;
  bool caffe_style = false;  // Bottleneck: stride on the 1x1 conv instead of the 3x3 one
  bool with_cp = false;      // recompute the block body in backward (activation checkpointing)
  BatchNormOptions norm;
};

// The block body's identity branch: 1x1 conv (stride) + BN, as `downsample.0` /
// `downsample.1`.
torch::nn::Sequential make_downsample(int64_t inplanes, int64_t outplanes, int64_t stride,
                                      const BatchNormOptions& norm);

// mmdet BasicBlock (expansion 1): conv1 3x3 → bn1 → ReLU → conv2 3x3 → bn2,
// plus identity, ReLU.
class BasicBlockImpl : public torch::nn::Module {
 public:
  static constexpr int64_t kExpansion = 1;
  BasicBlockImpl(const ResBlockOptions& options, torch::nn::Sequential downsample);
  at::Tensor forward(const at::Tensor& x);
  BatchNorm2dLayer& last_norm() { return bn2_; }

 private:
  at::Tensor body(const at::Tensor& x);

  bool with_cp_;
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  BatchNorm2dLayer bn1_{nullptr}, bn2_{nullptr};
  torch::nn::Sequential downsample_{nullptr};
};
TORCH_MODULE(BasicBlock);

// mmdet Bottleneck (expansion 4): 1x1 → 3x3 → 1x1 convs with bn1..bn3, plus
// identity, ReLU.
class BottleneckImpl : public torch::nn::Module {
 public:
  static constexpr int64_t kExpansion = 4;
  BottleneckImpl(const ResBlockOptions& options, torch::nn::Sequential downsample);
  at::Tensor forward(const at::Tensor& x);
  BatchNorm2dLayer& last_norm() { return bn3_; }

 private:
  at::Tensor body(const at::Tensor& x);

  bool with_cp_;
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr}, conv3_{nullptr};
  BatchNorm2dLayer bn1_{nullptr}, bn2_{nullptr}, bn3_{nullptr};
  torch::nn::Sequential downsample_{nullptr};
};
TORCH_MODULE(Bottleneck);

}  // namespace olv2
