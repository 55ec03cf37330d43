#pragma once
// The whole `train_ds` config: its schema, and the top-level keys kept or ignored from the Python
// configs.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"

namespace olv2 {

// Schema of a whole `train_ds` config: every section's schema, mmcv's informational top-level
// variables and Python bookkeeping keys.
Schema train_config_schema();

// A config as train_ds, test_ds and the data tools read it: `path` with its `_base_` files, then
// --cfg-options, then --max-frames (`data.max_frames`), then `edit` (a program's own flags for
// config keys), checked against train_config_schema().
ConfigNode read_train_config(const std::string& path, const std::vector<std::string>& cfg_options,
                             std::optional<int64_t> max_frames,
                             const std::function<void(ConfigNode&)>& edit = nullptr);

// Top-level keys kept from the Python config as variables (`_dim_`, `train_pipeline`, ...):
// accepted and printed, no effect.
const std::vector<std::string>& informational_keys();

// Keys that exist only for the Python stack (`custom_imports`, `workflow`, ...) or that this
// trainer decides itself (samplers, `evaluation.pipeline`), found in `root`: each "key: why".
std::vector<std::string> ignored_keys_in(const ConfigNode& root);

}  // namespace olv2
