#include "olv2/engine/settings/engine_schema.h"

namespace olv2 {

Schema runner_schema() {
  return Schema::map()
      .required("type", Schema::string().choices({"EpochBasedRunner"}))
      .required("max_epochs", Schema::integer().range(1, 1e9));
}

Schema bf16_schema() { return Schema::map().optional("enabled", Schema::boolean()); }

}  // namespace olv2
