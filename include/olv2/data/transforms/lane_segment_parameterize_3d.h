#pragma once
// LaneSegNet's `LaneSegmentParameterize3D` transform: every lane segment as its two boundaries
// resampled to a fixed number of points, and their mean.
#include <cstdint>
#include <memory>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/transforms/transform.h"

namespace olv2 {

// LaneSegmentParameterize3D(method='fix_pts_interp', method_para={n_points}): each lane
// segment's left and right boundary becomes n_points points evenly spaced along its length in
// the ground plane (resample_by_length), the centerline their mean (the annotated centerline is
// not used); gt_lc becomes [n, 3 * 3 * n_points] float32: centerline, left, right.
class LaneSegmentParameterize3D : public Transform {
 public:
  explicit LaneSegmentParameterize3D(int64_t n_points) : n_points_(n_points) {}
  static std::shared_ptr<const Transform> from_config(const ConfigNode& node);
  static Schema schema();
  const char* type() const override { return "LaneSegmentParameterize3D"; }
  void apply(PipelineData& data, std::mt19937_64& rng) const override;

 private:
  int64_t n_points_;
};

}  // namespace olv2
