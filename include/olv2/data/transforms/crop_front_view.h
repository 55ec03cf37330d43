#pragma once
// TopoNet's `CropFrontViewImageForAv2` transform: the rows of the portrait front image kept, its
// projection and the traffic elements with them.
#include <array>
#include <memory>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/transforms/transform.h"

namespace olv2 {

// CropFrontViewImageForAv2(crop_h): keeps rows [crop_h[0], crop_h[1]) of camera 0 (clamped to
// the image, as a Python slice), records the crop offset (0, crop_h[0]) as camera 0's
// crop_shape, moves its principal point up by crop_h[0] and rebuilds its lidar2img from it;
// shifts the traffic-element boxes up by crop_h[0] and drops those whose bottom edge is then at
// or above row 0, with their lane-traffic-element links.
class CropFrontView : public Transform {
 public:
  explicit CropFrontView(std::array<int64_t, 2> crop_h) : crop_h_(crop_h) {}
  static std::shared_ptr<const Transform> from_config(const ConfigNode& node);
  static Schema schema();
  const char* type() const override { return "CropFrontViewImageForAv2"; }
  void apply(PipelineData& data, std::mt19937_64& rng) const override;

 private:
  std::array<int64_t, 2> crop_h_;
};

}  // namespace olv2
