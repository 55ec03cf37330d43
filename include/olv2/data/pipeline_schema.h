#pragma once
// The schema of a split's `pipeline` list, each transform checked against its own parameters.
#include "olv2/config/schema.h"

namespace olv2 {

// Schema of a `data.<split>.pipeline` list: each entry is tagged by `type`, and
// each transform declares its own parameters, so an unknown parameter is a
// config error.
Schema pipeline_schema();

}  // namespace olv2
