#include "olv2/data/transforms/pad_multiview_images.h"

#include <algorithm>

#include "olv2/util/error.h"

namespace olv2 {

std::shared_ptr<const Transform> PadMultiViewImages::from_config(const ConfigNode& node) {
  PadMultiViewImagesOptions options;
  if (const ConfigNode* size = node.find("size"); size != nullptr && !size->is_null()) {
    const std::vector<int64_t> hw = size->as_vector<int64_t>();
    if (hw.size() != 2 || hw[0] <= 0 || hw[1] <= 0)
      throw input_error(size->where() + ": expected [H, W]");
    options.size = std::array<int64_t, 2>{hw[0], hw[1]};
  }
  if (const ConfigNode* divisor = node.find("size_divisor");
      divisor != nullptr && !divisor->is_null()) {
    options.size_divisor = divisor->as_int();
    if (*options.size_divisor <= 0)
      throw input_error(divisor->where() + ": expected a positive integer");
  }
  options.pad_val = node.get<float>("pad_val", options.pad_val);
  return std::make_shared<PadMultiViewImages>(options);
}

Schema PadMultiViewImages::schema() {
  return Schema::map()
      .required("type", Schema::string())
      .optional("size", Schema::sequence(Schema::integer()).nullable())
      .optional("size_divisor", Schema::integer().nullable())
      .optional("pad_val", Schema::number());
}

void PadMultiViewImages::apply(PipelineData& data, std::mt19937_64& /*rng*/) const {
  int64_t height = 0;
  int64_t width = 0;
  for (const auto& shape : data.img_shape) {
    height = std::max(height, shape[0]);
    width = std::max(width, shape[1]);
  }
  if (options_.size) {
    height = std::max(height, (*options_.size)[0]);
    width = std::max(width, (*options_.size)[1]);
  }
  if (options_.size_divisor) {
    const int64_t d = *options_.size_divisor;
    height = (height + d - 1) / d * d;
    width = (width + d - 1) / d * d;
  }
  data.pad_shape.clear();
  for (const auto& shape : data.img_shape) data.pad_shape.push_back({height, width, shape[2]});
  data.pad_val = options_.pad_val;
}

}  // namespace olv2
