#pragma once
#include <filesystem>
#include <memory>
#include <string>

#include "olv2/config/config_node.h"
#include "olv2/models/detectors/baseline.h"
#include "olv2/models/detectors/detector.h"

namespace olv2 {

// The options of the `model` section (validated against model_schema()); every error names
// the config file, line and key.
BaselineOptions baseline_options_from_config(const ConfigNode& model);

// Builds the detector named by `model.type` and applies `img_backbone.init_cfg` (a Pretrained
// checkpoint); without it every module keeps the original's own initialisation.
std::shared_ptr<DetectorImpl> build_detector(const ConfigNode& model);

// Where `init_cfg.checkpoint` points: `torchvision://NAME` resolves as torchvision does, to the
// single `$TORCH_HOME/hub/checkpoints/NAME-*.pth` (TORCH_HOME defaults to
// $XDG_CACHE_HOME/torch, else ~/.cache/torch); anything else is a local path. Throws an input
// error naming the expected path and the `model.img_backbone.init_cfg=null` alternative when
// the file is absent.
std::filesystem::path resolve_pretrained_checkpoint(const std::string& checkpoint);

}  // namespace olv2
