#pragma once
// The `CustomPadMultiViewImage` transform: padding every camera's image, with its options.
#include <optional>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/transforms/transform.h"

namespace olv2 {

struct PadMultiViewImagesOptions {
  std::optional<std::array<int64_t, 2>> size;  // fixed (H, W)
  std::optional<int64_t> size_divisor;
  float pad_val = 0;
};

// CustomPadMultiViewImage: pads every image at the bottom/right to the largest
// H/W of the views (or the fixed size), then to a multiple of size_divisor.
// Records pad_shape; the pixels are written by the format bundle into a tensor
// of that shape filled with pad_val.
class PadMultiViewImages : public Transform {
 public:
  explicit PadMultiViewImages(PadMultiViewImagesOptions options) : options_(options) {}
  static std::shared_ptr<const Transform> from_config(const ConfigNode& node);
  static Schema schema();
  const char* type() const override { return "CustomPadMultiViewImage"; }
  void apply(PipelineData& data, std::mt19937_64& rng) const override;

 private:
  PadMultiViewImagesOptions options_;
};

}  // namespace olv2
