#pragma once
// The `CustomLoadMultiViewImageFromFiles` transform, which decodes every camera's image.
#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/transforms/transform.h"

namespace olv2 {

struct LoadMultiViewImagesOptions {
  bool to_float32 = false;
  std::string color_type = "unchanged";  // only "unchanged" (OpenCV IMREAD_UNCHANGED)
};

// CustomLoadMultiViewImageFromFiles: decodes every camera's JPEG as 8-bit BGR
// and records img_shape / ori_shape. The float conversion is deferred to the
// next transform that needs floats (NormalizeMultiviewImage fuses it with
// normalisation).
class LoadMultiViewImages : public Transform {
 public:
  explicit LoadMultiViewImages(LoadMultiViewImagesOptions options) : options_(std::move(options)) {}
  static std::shared_ptr<const Transform> from_config(const ConfigNode& node);
  static Schema schema();
  const char* type() const override { return "CustomLoadMultiViewImageFromFiles"; }
  void apply(PipelineData& data, std::mt19937_64& rng) const override;

 private:
  LoadMultiViewImagesOptions options_;
};

}  // namespace olv2
