#pragma once
// TopoNet's `LoadAnnotations3DLane` transform: the annotations the frame reader has already read.
#include <memory>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/transforms/transform.h"

namespace olv2 {

// LoadAnnotations3DLane(with_lane_3d, with_lane_label_3d, with_lane_adj, with_bbox, with_label,
// with_lane_lcte_adj): the frame reader loads every annotation of a frame (get_ann_info), so
// this step only checks that a pipeline asks for all of them, as TopoNet's configs do.
class LoadLaneAnnotations : public Transform {
 public:
  static std::shared_ptr<const Transform> from_config(const ConfigNode& node);
  static Schema schema();
  const char* type() const override { return "LoadAnnotations3DLane"; }
  void apply(PipelineData& data, std::mt19937_64& rng) const override;
};

}  // namespace olv2
