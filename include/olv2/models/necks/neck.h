#pragma once
// The image necks: one interface, options read from `img_neck`, chosen by `type`.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>

#include <memory>
#include <vector>

#include "olv2/config/registry.h"

namespace olv2 {

// An image neck: the backbone's feature maps -> its own output levels, finest first.
class NeckImpl : public torch::nn::Module {
 public:
  virtual std::vector<at::Tensor> forward(const std::vector<at::Tensor>& inputs) = 0;
};

// A neck's options, as read from an `img_neck` section.
struct NeckOptions {
  virtual ~NeckOptions() = default;
  virtual std::shared_ptr<NeckImpl> build() const = 0;
};

// The necks an `img_neck.type` may name.
const Registry<NeckOptions>& neck_registry();

}  // namespace olv2
