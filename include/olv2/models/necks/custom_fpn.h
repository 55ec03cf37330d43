#pragma once
// OpenLane-V2's `CustomFPN` neck of `Baseline`, with its `img_neck` options.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/models/necks/neck.h"

namespace olv2 {

struct CustomFpnOptions : NeckOptions {
  std::vector<int64_t> in_channels{256, 512};
  int64_t out_channels = 128;
  int64_t num_outs = 1;
  int64_t start_level = 0;
  int64_t end_level = -1;  // -1: up to the last input level
  std::vector<int64_t> out_ids{0};
  // "", "on_input", "on_lateral" or "on_output" (mmdet's `add_extra_convs`;
  // true = "on_input").
  std::string add_extra_convs;
  bool relu_before_extra_convs = false;

  // `type: CustomFPN`: the FPN keys plus out_ids.
  static Schema schema();
  static CustomFpnOptions from_config(const ConfigNode& section);
  std::shared_ptr<NeckImpl> build() const override;
};

// OpenLane-V2's CustomFPN: 1x1 lateral convs, a nearest-upsampling top-down
// path, and 3x3 output convs only for the levels in `out_ids`. It returns the
// first of those outputs (the original returns `outs[0]`). Parameters
// `lateral_convs.i.conv.*`, `fpn_convs.j.conv.*`; every conv is Xavier-uniform
// initialised with zero bias (the module's init_cfg).
class CustomFpnImpl : public NeckImpl {
 public:
  explicit CustomFpnImpl(const CustomFpnOptions& options);

  // inputs: one feature map per entry of in_channels -> one level, [N, out_channels, H, W]
  // of out_ids[0].
  std::vector<at::Tensor> forward(const std::vector<at::Tensor>& inputs) override;

  const CustomFpnOptions& options() const { return options_; }

 private:
  CustomFpnOptions options_;
  int64_t backbone_end_level_ = 0;
  torch::nn::ModuleList lateral_convs_;
  torch::nn::ModuleList fpn_convs_;
};
TORCH_MODULE(CustomFpn);

}  // namespace olv2
