#pragma once
// How a training run logs: `log_config` and `log_level`.
#include <cstdint>
#include <string>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"

namespace olv2 {

// `log_config` (mmcv's: `interval`, and `hooks`, the loggers: training_hooks.h builds them) and
// the top-level `log_level`.
struct LogOptions {
  int64_t interval = 10;       // optimizer steps per logged average
  std::string level = "INFO";  // `log_level`

  static Schema schema();        // `log_config`: `hooks` holds sections of registered hooks
  static Schema level_schema();  // `log_level`
  // Absent sections keep the defaults.
  static LogOptions from_config(const ConfigNode* log_config, const ConfigNode* log_level);
};

}  // namespace olv2
