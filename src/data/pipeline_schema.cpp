#include "olv2/data/pipeline_schema.h"

#include "olv2/data/transforms/registry.h"

namespace olv2 {

Schema pipeline_schema() { return Schema::sequence(transform_registry().schema()); }

}  // namespace olv2
