#pragma once
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "olv2/config/config_node.h"
#include "olv2/models/detectors/baseline.h"
#include "olv2/models/detectors/baseline_large.h"
#include "olv2/models/detectors/detector.h"

namespace olv2 {

// The options of the `model` section (validated against model_schema()); every error names
// the config file, line and key.
BaselineOptions baseline_options_from_config(const ConfigNode& model);
BaselineLargeOptions baseline_large_options_from_config(const ConfigNode& model);

// Builds a detector from its validated `model` section.
using DetectorFactory = std::function<std::shared_ptr<DetectorImpl>(const ConfigNode& model)>;

// The model types `model.type` may name, each with its builder (mmdet's registry).
const std::map<std::string, DetectorFactory>& detector_registry();

// Builds the detector `model.type` names, through detector_registry(). The Baseline applies
// `img_backbone.init_cfg` (a Pretrained checkpoint); without it every module keeps the
// original's own initialisation. An unknown type is an input error naming the known ones.
std::shared_ptr<DetectorImpl> build_detector(const ConfigNode& model);

// The ground area, [x_min, y_min, z_min, x_max, y_max, z_max] in ego metres, the detector of
// `model` predicts lanes in, from its typed options: `lc_head.bev_range` (`Baseline`),
// `pts_bbox_head.pc_range` (`BaselineLarge`). An unknown `type` is an input error.
BevRange detector_bev_range(const ConfigNode& model);

// Where `init_cfg.checkpoint` points: `torchvision://NAME` resolves as torchvision does, to the
// single `$TORCH_HOME/hub/checkpoints/NAME-*.pth` (TORCH_HOME defaults to
// $XDG_CACHE_HOME/torch, else ~/.cache/torch); anything else is a local path. Throws an input
// error naming the expected path and the `model.img_backbone.init_cfg=null` alternative when
// the file is absent.
std::filesystem::path resolve_pretrained_checkpoint(const std::string& checkpoint);

}  // namespace olv2
