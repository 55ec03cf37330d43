#pragma once
// The solver settings of a config: the `optimizer` and `optimizer_config` sections, read once.
#include <optional>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/solver/grad_clip.h"
#include "olv2/solver/optimizer.h"
#include "olv2/solver/param_groups.h"

namespace olv2 {

// The `optimizer` and `optimizer_config` sections (schemas in solver_schema.h).
struct SolverOptions {
  AdamOptions adam;
  std::vector<CustomKeyRule> custom_keys;  // paramwise_cfg.custom_keys, as written
  std::optional<GradClipOptions> grad_clip;

  ParamGroupRules param_group_rules() const { return {adam.lr, adam.weight_decay, custom_keys}; }
};

// `optimizer_config` may be null (no section: no clipping, as mmcv's
// OptimizerHook). Throws an input error naming the key for a value mmcv would
// reject (decay_mult without a base weight_decay, betas not a pair).
SolverOptions solver_options_from_config(const ConfigNode& optimizer,
                                         const ConfigNode* optimizer_config);

}  // namespace olv2
