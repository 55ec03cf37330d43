#pragma once
// BEVFormer's `RandomScaleImageMultiViewImage` transform: every camera's image resized by one
// scale drawn from a list, projections and traffic-element boxes with it.
#include <memory>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/transforms/transform.h"

namespace olv2 {

// RandomScaleImageMultiViewImage(scales): draws one of `scales` (the original allows exactly
// one) and resizes every image to (int(w * s), int(h * s)) with OpenCV's bilinear resize in
// float32; the first two rows of each lidar2img and intrinsic matrix, the traffic-element boxes
// and scale_factor (s in all four places) follow. img_shape and ori_shape become the new sizes.
class RandomScaleImages : public Transform {
 public:
  explicit RandomScaleImages(std::vector<double> scales) : scales_(std::move(scales)) {}
  static std::shared_ptr<const Transform> from_config(const ConfigNode& node);
  static Schema schema();
  const char* type() const override { return "RandomScaleImageMultiViewImage"; }
  void apply(PipelineData& data, std::mt19937_64& rng) const override;

 private:
  std::vector<double> scales_;
};

}  // namespace olv2
