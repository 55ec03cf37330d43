#pragma once
#include "olv2/config/registry.h"
#include "olv2/data/transforms/transform.h"

namespace olv2 {

// Every transform type of a pipeline by its original name.
const Registry<Transform>& transform_registry();

}  // namespace olv2
