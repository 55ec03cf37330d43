#pragma once
// mmdet's `FPN` neck of `BaselineLarge`, with its `img_neck` options.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/models/necks/neck.h"

namespace olv2 {

struct FpnOptions : NeckOptions {
  std::vector<int64_t> in_channels{512, 1024, 2048};
  int64_t out_channels = 256;
  int64_t num_outs = 4;
  int64_t start_level = 0;
  int64_t end_level = -1;  // -1: up to the last input level
  // "" (extra levels by max-pooling), "on_input", "on_lateral" or "on_output"; mmdet's
  // `add_extra_convs: true` means "on_input".
  std::string add_extra_convs;
  bool relu_before_extra_convs = false;

  // mmdet's `type: FPN`.
  static Schema schema();
  static FpnOptions from_config(const ConfigNode& section);
  std::shared_ptr<NeckImpl> build() const override;
};

// mmdet's `FPN`: 1x1 lateral convs, the nearest-upsampling top-down path, a 3x3 output conv
// per level, then `num_outs - levels` extra levels made by stride-2 3x3 convs on the chosen
// source (or by stride-2 max-pooling without extra convs). As mmdet, the ReLU of
// `relu_before_extra_convs` only precedes the second and later extra convs. Parameters
// `lateral_convs.i.conv.*`, `fpn_convs.j.conv.*`; convs Xavier-uniform with zero bias.
class FpnImpl : public NeckImpl {
 public:
  explicit FpnImpl(const FpnOptions& options);

  // inputs: one map per entry of in_channels -> num_outs maps of out_channels, finest first.
  std::vector<at::Tensor> forward(const std::vector<at::Tensor>& inputs) override;

  const FpnOptions& options() const { return options_; }

 private:
  FpnOptions options_;
  int64_t backbone_end_level_ = 0;
  torch::nn::ModuleList lateral_convs_;
  torch::nn::ModuleList fpn_convs_;
};
TORCH_MODULE(Fpn);

}  // namespace olv2
