#pragma once
// What every hook type's options have: the `priority` of mmcv's hook sections and a builder for
// one rank of a run.
#include <memory>
#include <string>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/engine/hooks/hook.h"
#include "olv2/engine/hooks/hook_site.h"

namespace olv2 {

// A hook section's options (mmcv's `dict(type=..., priority=...)`). A hook type's options derive
// from it and read `priority` with read_hook_priority, whose default is the priority mmcv's
// Runner registers that hook at.
struct HookOptions {
  virtual ~HookOptions() = default;
  // The hook for one rank of the run `site` describes; null when it has nothing to do there
  // (validation in a run without validation data, a logger on a rank other than 0).
  virtual std::unique_ptr<Hook> build(const HookSite& site) const = 0;
  // `priority`: one of mmcv's names (HIGHEST ... LOWEST) or a number 0-100.
  int priority = HookPriority::kNormal;
};

// The schema of a hook type's section: `type` and `priority`, and the fields of `keys` (a map
// schema), the type's own.
Schema hook_schema(const std::string& type, const Schema& keys = Schema::map());
// The keys of mmcv's logger hooks (`by_epoch`, `interval`), accepted by this project's: they write
// when the IterTimerHook marks an interval due (`log_config.interval`).
Schema logger_hook_keys();
// The section's `priority`, else `default_priority`.
int read_hook_priority(const ConfigNode& section, int default_priority);

}  // namespace olv2
