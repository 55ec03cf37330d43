#pragma once
#include <torch/nn/module.h>

#include <filesystem>
#include <string>

#include "olv2/config/config_node.h"

namespace olv2 {

// Where `init_cfg.checkpoint` points: `torchvision://NAME` resolves as torchvision does, to the
// single `$TORCH_HOME/hub/checkpoints/NAME-*.pth` (TORCH_HOME defaults to
// $XDG_CACHE_HOME/torch, else ~/.cache/torch); anything else is a local path. Throws an input
// error naming the expected path and the `model.img_backbone.init_cfg=null` alternative when
// the file is absent.
std::filesystem::path resolve_pretrained_checkpoint(const std::string& checkpoint);

// Loads an `init_cfg` (type Pretrained) into `module` as mmcv does: non-strict, under `prefix`,
// from a bare state dict or one under `state_dict`.
void load_pretrained_weights(torch::nn::Module& module, const ConfigNode& init_cfg);

}  // namespace olv2
