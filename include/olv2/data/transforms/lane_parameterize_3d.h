#pragma once
// TopoNet's `LaneParameterize3D` transform: every centerline as a fixed number of points evenly
// spaced along it.
#include <cstdint>
#include <memory>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/transforms/transform.h"

namespace olv2 {

// LaneParameterize3D(method='fix_pts_interp', method_para={n_points}): each centerline becomes
// n_points points evenly spaced along its length in the ground plane (resample_by_length), or,
// as the original does for the training collections' 201-point lanes and 11 points, every 20th
// point; gt_lc becomes [n, 3 * n_points].
class LaneParameterize3D : public Transform {
 public:
  explicit LaneParameterize3D(int64_t n_points) : n_points_(n_points) {}
  static std::shared_ptr<const Transform> from_config(const ConfigNode& node);
  static Schema schema();
  const char* type() const override { return "LaneParameterize3D"; }
  void apply(PipelineData& data, std::mt19937_64& rng) const override;

 private:
  int64_t n_points_;
};

// The keys TopoNet's LaneParameterize3D and LaneSegNet's LaneSegmentParameterize3D share:
// `method` (fix_pts_interp, the only one the originals implement) and `method_para.n_points`.
Schema fix_pts_interp_schema();
// Their `method_para.n_points` (11 when absent); an input error naming the key for another
// method or fewer than 2 points.
int64_t fix_pts_interp_points(const ConfigNode& node);

}  // namespace olv2
