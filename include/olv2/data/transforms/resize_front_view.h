#pragma once
// The `ResizeFrontView` transform: the portrait front image stretched to landscape, geometry and
// boxes with it.
#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/transforms/transform.h"

namespace olv2 {

// ResizeFrontView: stretches the front image (camera 0) from W x H to H x W
// with OpenCV's bilinear resize, scales its projection matrix and the traffic
// element boxes, and records scale_factor = (w_scale, h_scale, w_scale,
// h_scale). Original behaviour: a stretch, not a rotation (spec §2.5).
class ResizeFrontView : public Transform {
 public:
  static std::shared_ptr<const Transform> from_config(const ConfigNode& node);
  static Schema schema();
  const char* type() const override { return "ResizeFrontView"; }
  void apply(PipelineData& data, std::mt19937_64& rng) const override;
};

}  // namespace olv2
