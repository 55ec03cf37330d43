#pragma once
// mmcv's `init_cfg: {type: Pretrained}`: finding a part's pretrained checkpoint and loading it.
#include <torch/nn/module.h>

#include <filesystem>
#include <string>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"

namespace olv2 {

// mmcv's `init_cfg: {type: Pretrained, checkpoint, prefix}` of a part.
struct PretrainedCheckpoint {
  std::string checkpoint;  // `torchvision://NAME` or a path
  std::string prefix;      // only the keys under it, without it
  std::string location;    // where the config names the checkpoint, for errors

  static Schema schema();
  static PretrainedCheckpoint from_config(const ConfigNode& section);
};

// Where `init_cfg.checkpoint` points: `torchvision://NAME` resolves as torchvision does, to the
// single `$TORCH_HOME/hub/checkpoints/NAME-*.pth` (TORCH_HOME defaults to
// $XDG_CACHE_HOME/torch, else ~/.cache/torch); anything else is a local path. Throws an input
// error naming the expected path and the `model.img_backbone.init_cfg=null` alternative when
// the file is absent.
std::filesystem::path resolve_pretrained_checkpoint(const std::string& checkpoint);

// Loads the checkpoint into `module` as mmcv does: non-strict, under `prefix`, from a bare state
// dict or one under `state_dict`. An absent file is an input error naming `location`.
void load_pretrained_weights(torch::nn::Module& module, const PretrainedCheckpoint& pretrained);

}  // namespace olv2
