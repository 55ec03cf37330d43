#include "olv2/engine/logging/log_options.h"

#include "olv2/engine/hooks/hook_registry.h"

namespace olv2 {

Schema LogOptions::schema() {
  return Schema::map()
      .required("interval", Schema::integer().range(1, 1e9))
      .optional("hooks", Schema::sequence(hook_registry().schema()));
}

Schema LogOptions::level_schema() {
  return Schema::string().choices({"DEBUG", "INFO", "WARNING", "ERROR"});
}

LogOptions LogOptions::from_config(const ConfigNode* log_config, const ConfigNode* log_level) {
  LogOptions options;
  if (log_config != nullptr)
    options.interval = log_config->get<int64_t>("interval", options.interval);
  if (log_level != nullptr) options.level = log_level->as_string();
  return options;
}

}  // namespace olv2
