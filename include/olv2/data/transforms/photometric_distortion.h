#pragma once
// The `PhotoMetricDistortionMultiViewImage` transform: random colour augmentation, with its options
// and its draws.
#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/transforms/transform.h"

namespace olv2 {

struct PhotoMetricDistortionOptions {
  double brightness_delta = 32;
  double contrast_lower = 0.5, contrast_upper = 1.5;
  double saturation_lower = 0.5, saturation_upper = 1.5;
  double hue_delta = 18;
};

// PhotoMetricDistortionMultiViewImage: per image, random brightness, contrast
// (before or after the HSV step), saturation, hue and channel swap, in the
// original's order (spec §2.4). Original behaviour: it runs after
// normalisation, so it acts on normalised RGB floats.
class PhotoMetricDistortion : public Transform {
 public:
  explicit PhotoMetricDistortion(PhotoMetricDistortionOptions options) : options_(options) {}
  static std::shared_ptr<const Transform> from_config(const ConfigNode& node);
  static Schema schema();
  const char* type() const override { return "PhotoMetricDistortionMultiViewImage"; }
  void apply(PipelineData& data, std::mt19937_64& rng) const override;

  // The draws for one image, in the original's order.
  struct Draw {
    bool brightness = false;
    float brightness_delta = 0;
    bool contrast_first = false;  // mode == 1
    bool contrast = false;
    float contrast_alpha = 1;
    bool saturation = false;
    float saturation_scale = 1;
    bool hue = false;
    float hue_shift = 0;
    bool swap = false;
    std::array<int, 3> permutation{0, 1, 2};
  };
  Draw draw(std::mt19937_64& rng) const;
  // Applies one draw to an HWC float32 3-channel image in place (except the
  // channel swap, which is returned in the draw for the format bundle to apply
  // while transposing).
  static void distort(cv::Mat& image, const Draw& draw);

 private:
  PhotoMetricDistortionOptions options_;
};

}  // namespace olv2
