#pragma once
// mmcv's `FFN`, the feed-forward block of every transformer layer, with its config.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"

namespace olv2 {

struct FfnOptions {
  int64_t embed_dims = 64;
  int64_t feedforward_channels = 512;
  int64_t num_fcs = 2;
  double ffn_drop = 0.0;
  bool add_identity = true;

  // mmcv `type: FFN`; the original's configs give it as a dict or as a list of one.
  static Schema schema();
  // The FFN of a transformer-layer section: its `ffn_cfgs` over `defaults`, then mmcv
  // BaseTransformerLayer's deprecated layer-level `feedforward_channels` and `ffn_dropout`.
  static FfnOptions from_layer_config(const ConfigNode& layer, FfnOptions defaults);
};

// mmcv `FFN`: `layers` = num_fcs - 1 blocks of (Linear, ReLU, Dropout), then
// Linear back to embed_dims and Dropout (keys `layers.0.0.weight`, ...,
// `layers.{num_fcs-1}.weight`); returns `identity + out` (identity defaults to
// x) when `add_identity`, else `out`.
class FfnImpl : public torch::nn::Module {
 public:
  explicit FfnImpl(const FfnOptions& options);
  at::Tensor forward(const at::Tensor& x, const at::Tensor& identity = {});
  void set_dropout(double p);

 private:
  FfnOptions options_;
  torch::nn::ModuleList layers_{nullptr};
};
TORCH_MODULE(Ffn);

}  // namespace olv2
