#include "olv2/models/bev/offset_normalizer.h"

#include <torch/torch.h>

#include <vector>

namespace olv2 {

at::Tensor level_offset_normalizer(const SpatialShapes& spatial_shapes, const c10::Device& device) {
  std::vector<float> sizes;
  for (const auto& [h, w] : spatial_shapes) {
    sizes.push_back(static_cast<float>(w));
    sizes.push_back(static_cast<float>(h));
  }
  const auto levels = static_cast<int64_t>(spatial_shapes.size());
  return torch::tensor(sizes, torch::kFloat).view({levels, 1, 2}).to(device);
}

}  // namespace olv2
