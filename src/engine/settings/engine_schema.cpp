#include "olv2/engine/settings/engine_schema.h"

#include "olv2/data/pipeline_schema.h"
#include "olv2/engine/logging/train_log.h"

namespace olv2 {

Schema runner_schema() {
  return Schema::map()
      .required("type", Schema::string().choices({"EpochBasedRunner"}))
      .required("max_epochs", Schema::integer().range(1, 1e9));
}

Schema log_config_schema() {
  const Schema hook =
      Schema::map()
          .required("type", Schema::string().choices({"TextLoggerHook", "TensorboardLoggerHook"}))
          .optional("by_epoch", Schema::boolean())
          .optional("interval", Schema::integer().range(1, 1e9));
  return Schema::map()
      .required("interval", Schema::integer().range(1, 1e9))
      .optional("hooks", Schema::sequence(hook));
}

Schema checkpoint_config_schema() {
  return Schema::map()
      .optional("interval", Schema::integer().range(-1, 1e9))
      .optional("by_epoch", Schema::boolean())
      .optional("iter_interval", Schema::integer().range(0, 1e12))
      .optional("max_keep_ckpts", Schema::integer().range(-1e9, 1e9));
}

Schema evaluation_schema() {
  return Schema::map()
      .optional("interval", Schema::integer().range(0, 1e9))
      .optional("before_train", Schema::boolean())
      .optional("visualize", Schema::integer().range(0, 1e9))
      .optional("save_best", Schema::string().choices(headline_metric_names()).nullable())
      .optional("rule", Schema::string().choices({"greater", "less"}))
      .optional("keep_results", Schema::integer())
      .optional("metric_version", Schema::string().choices({"v1.1", "v1.0"}))
      .optional("pipeline", pipeline_schema());
}

Schema submission_schema() {
  return Schema::map()
      .optional("method", Schema::string())
      .optional("authors", Schema::sequence(Schema::string()))
      .optional("e-mail", Schema::string())
      .optional("institution / company", Schema::string())
      .optional("country / region", Schema::string());
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
