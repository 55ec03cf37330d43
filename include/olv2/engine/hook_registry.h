#pragma once
// The hooks a config's `custom_hooks` may add, by `type`.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/registry.h"
#include "olv2/config/schema.h"
#include "olv2/engine/hook.h"

namespace olv2 {

// A `custom_hooks` entry's options (mmcv's `custom_hooks=[dict(type=..., priority=...)]`). A
// hook type's options derive from it, read `priority` with read_hook_priority and build the
// hook for one rank of a run.
struct HookOptions {
  virtual ~HookOptions() = default;
  virtual std::unique_ptr<Hook> build() const = 0;
  // `priority`: one of mmcv's names (HIGHEST ... LOWEST) or a number 0-100; each type has its
  // own default.
  int priority = HookPriority::kNormal;
};

// The schema of a hook type's section: `type` and `priority`; the type adds its own keys.
Schema hook_schema(const std::string& type);
// The section's `priority`, else `default_priority`.
int read_hook_priority(const ConfigNode& section, int default_priority);

// Every hook type `custom_hooks` may name.
const Registry<HookOptions>& hook_registry();

// One `custom_hooks` entry.
struct CustomHook {
  std::string type;
  std::shared_ptr<const HookOptions> options;
};

// `custom_hooks`: a list of hook sections of registered types.
Schema custom_hooks_schema();
// Every `custom_hooks` entry of `root`, in order; none without the key.
std::vector<CustomHook> custom_hooks_from_config(const ConfigNode& root);

}  // namespace olv2
