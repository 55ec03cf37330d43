#pragma once
// The BEV constructors: multi-camera image features -> a bird's-eye-view feature map, one
// interface, chosen by `type`.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>

#include <memory>
#include <vector>

#include "olv2/config/registry.h"
#include "olv2/data/batch.h"

namespace olv2 {

class BevConstructorImpl : public torch::nn::Module {
 public:
  // levels: the neck's outputs [B, N_cam, C, h, w], finest first; the batch gives each sample's
  // camera projections, image sizes and can-bus vector -> BEV [B, C, bev_h, bev_w] (row = the
  // first BEV axis of the original's flat `row * bev_w + column` order).
  virtual at::Tensor forward(const std::vector<at::Tensor>& levels, const Batch& batch) = 0;
  // Sets every dropout probability of the constructor.
  virtual void set_dropout(double p) = 0;
};

// A BEV constructor's options, as read from an `img_view_transformer` or `bev_constructor`
// section.
struct BevConstructorOptions {
  virtual ~BevConstructorOptions() = default;
  // `checkpointed`: recomputed in backward (activation checkpointing) in the segments the
  // constructor chooses, while training with gradients.
  virtual std::shared_ptr<BevConstructorImpl> build(bool checkpointed) const = 0;
};

// The constructors an `img_view_transformer.type` or `bev_constructor.type` may name.
const Registry<BevConstructorOptions>& bev_constructor_registry();

}  // namespace olv2
