#pragma once
// mmdet's ResNet backbone, with its `img_backbone` options and parameter names.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/models/backbones/backbone.h"
#include "olv2/models/layers/batch_norm_2d.h"

namespace olv2 {

struct ResNetOptions : BackboneOptions {
  int64_t depth = 50;  // 18, 34 (BasicBlock) or 50, 101, 152 (Bottleneck)
  int64_t in_channels = 3;
  int64_t stem_channels = 64;
  int64_t base_channels = 64;
  int64_t num_stages = 4;
  std::vector<int64_t> strides{1, 2, 2, 2};
  std::vector<int64_t> dilations{1, 1, 1, 1};
  std::vector<int64_t> out_indices{0, 1, 2, 3};
  std::string style = "pytorch";  // or "caffe": Bottleneck stride on its first 1x1 conv
  int64_t frozen_stages = -1;     // stem and layer1..layerN: no gradient, eval mode
  BatchNormOptions norm;          // `norm_cfg`
  bool norm_eval = true;          // BatchNorm layers stay in eval mode while training
  bool with_cp = false;           // activation checkpointing of every residual block
  bool zero_init_residual = true;

  // mmdet's `type: ResNet` keys, plus `init_cfg`.
  static Schema schema();
  // The stem follows base_channels unless stem_channels is given (mmdet).
  static ResNetOptions from_config(const ConfigNode& section);
  std::shared_ptr<BackboneImpl> build() const override;
};

// mmdet's ResNet with its parameter names (conv1, bn1, layer1..layer4 with
// blocks "0", "1", ..., downsample.0/1): the same keys as torchvision's resnet
// minus `fc`. Initialised as mmdet does without a pretrained checkpoint:
// Kaiming-normal convs (fan_out, ReLU), BN weight 1 / bias 0, and the last BN
// of every block zeroed when `zero_init_residual`.
class ResNetImpl : public BackboneImpl {
 public:
  explicit ResNetImpl(const ResNetOptions& options);

  // x [N, in_channels, H, W] -> the outputs of the stages in `out_indices`, in
  // that order.
  std::vector<at::Tensor> forward(const at::Tensor& x) override;

  // Keeps frozen stages and (with norm_eval) every BatchNorm in eval mode, as
  // mmdet's train().
  void train(bool on = true) override;

  const ResNetOptions& options() const { return options_; }
  // Channels of each stage output (stage i: base_channels * 2^i * expansion).
  std::vector<int64_t> stage_channels() const;

 private:
  void freeze_stages();
  void init_weights();

  ResNetOptions options_;
  int64_t expansion_ = 1;
  torch::nn::Conv2d conv1_{nullptr};
  BatchNorm2dLayer bn1_{nullptr};
  std::vector<torch::nn::Sequential> layers_;
};
TORCH_MODULE(ResNet);

}  // namespace olv2
