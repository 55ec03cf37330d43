#include "olv2/models/heads/lane_regression.h"

#include <torch/torch.h>

#include <vector>

namespace olv2 {

at::Tensor points_in_range(const at::Tensor& normalized, const BevRange& range) {
  const int64_t pts_dim = normalized.size(-1);
  std::vector<double> low, size;
  for (int64_t d = 0; d < pts_dim; ++d) {
    low.push_back(range[static_cast<size_t>(d)]);
    size.push_back(range[static_cast<size_t>(d) + 3] - range[static_cast<size_t>(d)]);
  }
  return normalized * torch::tensor(size, normalized.options()) +
         torch::tensor(low, normalized.options());
}

at::Tensor lanes_from_regression(const at::Tensor& regression, const at::Tensor& reference,
                                 const BevRange& range, int64_t pts_dim) {
  auto sizes = regression.sizes().vec();
  sizes.back() /= pts_dim;
  sizes.push_back(pts_dim);
  // Original behaviour: the one reference point is added to every point of the lane.
  const at::Tensor normalized =
      (regression.to(torch::kFloat).view(sizes) + reference.to(torch::kFloat).unsqueeze(-2))
          .sigmoid();
  return points_in_range(normalized, range).flatten(-2);
}

}  // namespace olv2
