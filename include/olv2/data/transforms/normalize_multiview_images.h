#pragma once
// The `NormalizeMultiviewImage` transform: per-channel mean and std normalisation of every image.
#include <array>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/transforms/transform.h"

namespace olv2 {

struct NormalizeMultiViewImagesOptions {
  std::array<float, 3> mean{123.675f, 116.28f, 103.53f};  // in output (RGB when to_rgb) order
  std::array<float, 3> std{58.395f, 57.12f, 57.375f};
  bool to_rgb = true;
};

// NormalizeMultiviewImage: BGR->RGB (to_rgb) then (x - mean) / std per channel
// in float32. On 8-bit input the conversion to float is fused into the same
// pass (a lookup table of the 256 possible results per channel, computed with
// the same float32 arithmetic).
class NormalizeMultiViewImages : public Transform {
 public:
  explicit NormalizeMultiViewImages(NormalizeMultiViewImagesOptions options) : options_(options) {}
  static std::shared_ptr<const Transform> from_config(const ConfigNode& node);
  static Schema schema();
  const char* type() const override { return "NormalizeMultiviewImage"; }
  void apply(PipelineData& data, std::mt19937_64& rng) const override;

 private:
  NormalizeMultiViewImagesOptions options_;
};

}  // namespace olv2
