#include "olv2/engine/settings/engine_schema.h"

namespace olv2 {

Schema runner_schema() {
  return Schema::map()
      .required("type", Schema::string().choices({"EpochBasedRunner"}))
      .required("max_epochs", Schema::integer().range(1, 1e9));
}

Schema fp16_schema() {
  return Schema::map()
      .optional("enabled", Schema::boolean())
      .optional("loss_scale", Schema::number().range(0.0, 1e30))
      .optional("initial_scale_power", Schema::integer().range(0, 127))
      .optional("loss_scale_window", Schema::integer().range(1, 1e12))
      .optional("hysteresis", Schema::integer().range(1, 1e12))
      .optional("consecutive_hysteresis", Schema::boolean())
      .optional("min_loss_scale", Schema::number().range(0.0, 1e30))
      .optional("raise_error_at_min_scale", Schema::boolean());
}

Schema bf16_schema() { return Schema::map().optional("enabled", Schema::boolean()); }

}  // namespace olv2
