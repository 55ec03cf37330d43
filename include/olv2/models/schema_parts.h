#pragma once
#include <string>

#include "olv2/config/schema.h"

namespace olv2 {

// Building blocks shared by the schemas of the detectors' `model` sections.

// A map whose `type` must be `type`.
Schema typed_schema(const std::string& type);
Schema numbers_schema();
Schema integers_schema();
// mmdet `FocalLoss` (use_sigmoid, gamma, alpha, loss_weight).
Schema focal_loss_schema();
// A loss with only a `loss_weight` (L1Loss, GIoULoss).
Schema weighted_loss_schema(const std::string& type);
// `HungarianAssigner` or `LaneHungarianAssigner` with their costs.
Schema assigner_schema();
// mmdet `ResNet`.
Schema resnet_schema();

}  // namespace olv2
