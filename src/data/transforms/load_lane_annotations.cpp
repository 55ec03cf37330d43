#include "olv2/data/transforms/load_lane_annotations.h"

#include <string>

#include "olv2/util/error.h"

namespace olv2 {
namespace {

const char* const kFlags[] = {"with_lane_3d", "with_lane_label_3d", "with_lane_adj",
                              "with_bbox",    "with_label",         "with_lane_lcte_adj"};

}  // namespace

std::shared_ptr<const Transform> LoadLaneAnnotations::from_config(const ConfigNode& node) {
  for (const char* flag : kFlags) {
    if (const ConfigNode* value = node.find(flag); value != nullptr && !value->as_bool()) {
      throw input_error(value->where() + ": " + flag +
                        ": false is not supported (every annotation is loaded, as TopoNet's "
                        "configs ask)");
    }
  }
  return std::make_shared<LoadLaneAnnotations>();
}

Schema LoadLaneAnnotations::schema() {
  Schema schema = Schema::map();
  schema.required("type", Schema::string());
  for (const char* flag : kFlags) schema.optional(flag, Schema::boolean());
  return schema;
}

void LoadLaneAnnotations::apply(PipelineData& /*data*/, std::mt19937_64& /*rng*/) const {}

}  // namespace olv2
