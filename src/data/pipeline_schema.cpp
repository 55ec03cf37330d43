#include "olv2/data/pipeline_schema.h"

#include "olv2/data/transforms/registry.h"

namespace olv2 {

Schema pipeline_schema() {
  std::map<std::string, Schema> variants;
  for (const auto& [type, factory] : transform_registry()) variants.emplace(type, factory.schema());
  return Schema::sequence(Schema::tagged("type", std::move(variants)));
}

}  // namespace olv2
