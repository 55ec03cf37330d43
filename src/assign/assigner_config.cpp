#include "olv2/assign/assigner_config.h"

#include "olv2/assign/hungarian_assigner.h"
#include "olv2/assign/lane_hungarian_assigner.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema assigner_schema() {
  return Schema::tagged("type",
                        {{"HungarianAssigner", HungarianAssignerOptions::schema()},
                         {"LaneHungarianAssigner", LaneHungarianAssignerOptions::schema()}});
}

Schema iou_cost_schema() {
  Schema cost = weighted_cost_schema("IoUCost");
  cost.optional("iou_mode", Schema::string().choices({"iou", "giou"}));
  return cost;
}

void require_assigner_type(const ConfigNode& assigner, const std::string& type) {
  const ConfigNode& given = assigner.at("type");
  if (given.as_string() != type) {
    throw input_error(given.where() + ": this head matches with " + type + ", not " +
                      given.as_string());
  }
}

}  // namespace olv2
