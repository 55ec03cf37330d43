#pragma once
// The `CustomParameterizeLane` transform: lane centerlines as endpoint-fixed Bezier control points.
#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/transforms/transform.h"

namespace olv2 {

// CustomParameterizeLane(method='bezier_Endpointfixed'): replaces every
// centerline polyline by its n_control Bezier control points (end points
// fixed), flattened: gt_lc [n, 3 * n_control].
class ParameterizeLanes : public Transform {
 public:
  explicit ParameterizeLanes(int n_control) : n_control_(n_control) {}
  static std::shared_ptr<const Transform> from_config(const ConfigNode& node);
  static Schema schema();
  const char* type() const override { return "CustomParameterizeLane"; }
  void apply(PipelineData& data, std::mt19937_64& rng) const override;

 private:
  int n_control_;
};

}  // namespace olv2
