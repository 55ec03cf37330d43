#include "olv2/engine/logging/log_options.h"

namespace olv2 {

Schema LogOptions::schema() {
  const Schema hook =
      Schema::map()
          .required("type", Schema::string().choices({"TextLoggerHook", "TensorboardLoggerHook"}))
          .optional("by_epoch", Schema::boolean())
          .optional("interval", Schema::integer().range(1, 1e9));
  return Schema::map()
      .required("interval", Schema::integer().range(1, 1e9))
      .optional("hooks", Schema::sequence(hook));
}

Schema LogOptions::level_schema() {
  return Schema::string().choices({"DEBUG", "INFO", "WARNING", "ERROR"});
}

LogOptions LogOptions::from_config(const ConfigNode* log_config, const ConfigNode* log_level) {
  LogOptions options;
  if (log_config != nullptr) {
    options.interval = log_config->get<int64_t>("interval", options.interval);
    if (const ConfigNode* hooks = log_config->find("hooks");
        hooks != nullptr && hooks->is_sequence()) {
      for (const ConfigNode& hook : hooks->elements()) {
        if (hook.get<std::string>("type", "") == "TensorboardLoggerHook")
          options.tensorboard = true;
      }
    }
  }
  if (log_level != nullptr) options.level = log_level->as_string();
  return options;
}

}  // namespace olv2
