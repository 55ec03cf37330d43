#pragma once
// The config of the losses that have only a `loss_weight`.
#include <string>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"

namespace olv2 {

// The config of a loss that has only a weight: `type: <type>` plus `loss_weight` (mmdet's
// L1Loss and GIoULoss as the heads use them).
Schema weighted_loss_schema(const std::string& type);

// section[key].loss_weight, or `fallback` when the loss or its weight is absent or null.
double loss_weight_from_config(const ConfigNode& section, const std::string& key, double fallback);

}  // namespace olv2
