#pragma once
#include <string>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"

namespace olv2 {

// The assigners a head's `assigner` section may name, by `type` (HungarianAssigner,
// LaneHungarianAssigner); each head reads the one it needs.
Schema assigner_schema();

// `type: IoUCost` (weight, iou_mode), shared by the assigners.
Schema iou_cost_schema();

// Throws an input error naming the key when the assigner's `type` is not `type`.
void require_assigner_type(const ConfigNode& assigner, const std::string& type);

}  // namespace olv2
