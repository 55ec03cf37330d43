#pragma once
// The transforms a pipeline list may name, by `type`.
#include "olv2/config/registry.h"
#include "olv2/data/transforms/transform.h"

namespace olv2 {

// Every transform type of a pipeline by its original name.
const Registry<Transform>& transform_registry();

}  // namespace olv2
