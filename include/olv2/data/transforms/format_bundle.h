#pragma once
// The `CustomDefaultFormatBundle` transform: images and ground truth turned into tensors.
#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/transforms/transform.h"

namespace olv2 {

// CustomDefaultFormatBundle: stacks the HWC images into one [N_cam, 3, H, W]
// float32 tensor (in a single pass that also applies the padding and any
// channel swap) and turns the ground truth into tensors with the original
// dtypes.
class FormatBundle : public Transform {
 public:
  static std::shared_ptr<const Transform> from_config(const ConfigNode& node);
  static Schema schema();
  const char* type() const override { return "CustomDefaultFormatBundle"; }
  void apply(PipelineData& data, std::mt19937_64& rng) const override;
};

}  // namespace olv2
