#pragma once
// The solver settings of a config: the `optimizer` and `optimizer_config` sections, read once.
#include <memory>
#include <optional>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/solver/grad_clip.h"
#include "olv2/solver/optimizer.h"
#include "olv2/solver/param_groups.h"

namespace olv2 {

struct SolverOptions {
  // `optimizer`: any registered optimizer (optimizer.h), torch's AdamW by default. Shared and
  // never changed: a setting laid over it (DeepSpeed, auto_scale_lr) replaces it with an edited
  // copy.
  std::shared_ptr<const OptimizerOptions> optimizer;
  // The `optimizer` section `optimizer` was read from, which a DeepSpeed JSON's optimizer is laid
  // over.
  ConfigNode optimizer_section;
  // `optimizer_config.grad_clip`; none: no clipping.
  std::optional<GradClipOptions> grad_clip;

  // `optimizer_config`: gradient clipping (`grad_clip: null` turns it off).
  static Schema optimizer_config_schema();
  // `optimizer_config` may be null (no section: no clipping, as mmcv's OptimizerHook).
  static SolverOptions from_config(const ConfigNode& optimizer, const ConfigNode* optimizer_config);

  ParamGroupRules param_group_rules() const { return optimizer->param_group_rules(); }
};

}  // namespace olv2
