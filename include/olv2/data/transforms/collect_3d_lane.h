#pragma once
// TopoNet's `CustomCollect3D` transform: Collect under TopoNet's key names.
#include <memory>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/transforms/transform.h"

namespace olv2 {

// CustomCollect3D(keys, meta_keys): Collect of the same keys by TopoNet's names (gt_lanes_3d,
// gt_lane_labels_3d, gt_lane_adj, gt_bboxes, gt_labels, gt_lane_lcte_adj); every image meta
// the models read is kept whatever `meta_keys` lists.
struct Collect3DLane {
  static std::shared_ptr<const Transform> from_config(const ConfigNode& node);
  static Schema schema();
};

}  // namespace olv2
