#pragma once
// LaneSegNet's `LoadAnnotations3DLaneSegment` transform: the lane-segment annotations the frame
// reader has already read.
#include <memory>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/transforms/transform.h"

namespace olv2 {

// LoadAnnotations3DLaneSegment(with_lane_3d, with_lane_label_3d, with_lane_adj, with_lane_type,
// with_lane_lste_adj, with_area, with_bbox, with_label, ...): the frame reader loads every
// annotation of a v2.x frame; this step completes the dataset's get_ann_info and checks that the
// lane segments, their labels, adjacency and line types are asked for and that the frame is a
// lane-segment frame. Without `with_area` (LaneSegNet's dataset) each pedestrian crossing (5
// points) is appended as a lane segment of label 1 (ped_crossing_as_lane_segment) and road
// boundaries are dropped; with it (the Map Element Bucket's dataset, whose config alone sets it)
// the lane segments stay alone and every area is kept as a point set resampled to
// kMapElementAreaPoints along its length, labelled category - 1. The other flags only say what
// CustomCollect3D keeps, which its own keys decide.
class LoadLaneSegmentAnnotations : public Transform {
 public:
  explicit LoadLaneSegmentAnnotations(bool with_area) : with_area_(with_area) {}
  static std::shared_ptr<const Transform> from_config(const ConfigNode& node);
  static Schema schema();
  const char* type() const override { return "LoadAnnotations3DLaneSegment"; }
  void apply(PipelineData& data, std::mt19937_64& rng) const override;

 private:
  bool with_area_;
};

// The points of each area the Map Element Bucket's dataset gives its area head (its
// `fix_pts_interpolate(points, 20)`).
inline constexpr int64_t kMapElementAreaPoints = 20;

}  // namespace olv2
