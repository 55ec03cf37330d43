#pragma once
// The image backbones: one interface, options read from `img_backbone`, chosen by `type`.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>

#include <memory>
#include <optional>
#include <vector>

#include "olv2/config/registry.h"
#include "olv2/models/pretrained_checkpoint.h"

namespace olv2 {

// An image backbone: images [N, C, H, W] -> feature maps of its output stages, finest first.
class BackboneImpl : public torch::nn::Module {
 public:
  virtual std::vector<at::Tensor> forward(const at::Tensor& images) = 0;
};

// A backbone's options, as read from an `img_backbone` section.
struct BackboneOptions {
  virtual ~BackboneOptions() = default;
  virtual std::shared_ptr<BackboneImpl> build() const = 0;

  // Weights build_detector loads into the backbone (`init_cfg`); none: the part's own
  // initialisation.
  std::optional<PretrainedCheckpoint> init_cfg;
};

// The backbones an `img_backbone.type` may name.
const Registry<BackboneOptions>& backbone_registry();

}  // namespace olv2
