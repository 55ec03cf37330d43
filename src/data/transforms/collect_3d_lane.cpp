#include "olv2/data/transforms/collect_3d_lane.h"

#include <map>
#include <string>
#include <vector>

#include "olv2/data/transforms/collect.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

const std::map<std::string, std::string> kOurNames = {
    {"img", "img"},
    {"gt_lanes_3d", "gt_lc"},
    {"gt_lane_labels_3d", "gt_lc_labels"},
    {"gt_lane_adj", "gt_topology_lclc"},
    {"gt_bboxes", "gt_te"},
    {"gt_labels", "gt_te_labels"},
    {"gt_lane_lcte_adj", "gt_topology_lcte"},
    {"gt_lane_lste_adj", "gt_topology_lcte"},
    {"gt_areas_3d", "gt_areas"},
    {"gt_area_labels_3d", "gt_area_labels"},
    {"gt_lane_left_type", "gt_lane_left_type"},
    {"gt_lane_right_type", "gt_lane_right_type"},
    {"gt_instance_masks", "gt_instance_masks"},
};

}  // namespace

std::shared_ptr<const Transform> Collect3DLane::from_config(const ConfigNode& node) {
  const ConfigNode& keys = node.at("keys");
  std::vector<std::string> ours;
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string name = keys[i].as_string();
    const auto found = kOurNames.find(name);
    if (found == kOurNames.end()) {
      std::string known;
      for (const auto& [key, our] : kOurNames) known += (known.empty() ? "" : ", ") + key;
      throw input_error(keys[i].where() + ": unknown key '" + name + "' (known: " + known + ")");
    }
    ours.push_back(found->second);
  }
  return std::make_shared<Collect>(ours, Collect::all_meta_keys());
}

Schema Collect3DLane::schema() {
  return Schema::map()
      .required("type", Schema::string())
      .required("keys", Schema::sequence(Schema::string()))
      .optional("meta_keys", Schema::sequence(Schema::string()));
}

}  // namespace olv2
