#pragma once
// The schemas of the config's `optimizer` and `optimizer_config` sections.
#include "olv2/config/schema.h"

namespace olv2 {

// `optimizer`: AdamW with mmcv's paramwise_cfg.custom_keys (lr_mult /
// decay_mult).
Schema optimizer_schema();

// `optimizer_config`: gradient clipping (`grad_clip: null` turns it off).
Schema optimizer_config_schema();

// `lr_config`: mmcv CosineAnnealing with optional warm-up.

}  // namespace olv2
