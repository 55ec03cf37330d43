#pragma once
// Building a detector from the `model` section: the detector registry, its schema, and the
// pretrained backbone weights.
#include <memory>

#include "olv2/config/config_node.h"
#include "olv2/config/registry.h"
#include "olv2/config/schema.h"
#include "olv2/models/detectors/detector.h"

namespace olv2 {

// The detectors `model.type` may name (mmdet's registry): Baseline, BaselineLarge.
const Registry<DetectorOptions>& detector_registry();

// The `model` section: a detector of any registered type.
Schema model_schema();

// The options of the detector `model.type` names, validated; an unknown type is an input error
// naming the known ones.
std::shared_ptr<const DetectorOptions> detector_options_from_config(const ConfigNode& model);

// Builds the detector. When its backbone has an `init_cfg` (a Pretrained checkpoint) those
// weights are loaded into it; otherwise every module keeps the original's own initialisation.
std::shared_ptr<DetectorImpl> build_detector(const DetectorOptions& options);
std::shared_ptr<DetectorImpl> build_detector(const ConfigNode& model);

// The ground area the detector of `model` predicts lanes in (DetectorOptions::bev_range).
BevRange detector_bev_range(const ConfigNode& model);

}  // namespace olv2
