#pragma once
#include <map>
#include <memory>
#include <string>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/transforms/transform.h"

namespace olv2 {

// How to build one transform type and which parameters it takes.
struct TransformFactory {
  std::shared_ptr<const Transform> (*build)(const ConfigNode& node);
  Schema (*schema)();
};

// Every transform type by its original name.
const std::map<std::string, TransformFactory>& transform_registry();

}  // namespace olv2
