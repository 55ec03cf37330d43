#include "olv2/models/bev/bev_reference_points.h"

#include <torch/torch.h>

#include <vector>

#include "olv2/util/autocast_guard.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

// (i + 0.5) / n for i in 0 .. n-1, as the original's float linspace divided by n.
at::Tensor cell_centres(int64_t n, const c10::TensorOptions& options) {
  return torch::linspace(0.5, static_cast<double>(n) - 0.5, n, options) / n;
}

}  // namespace

at::Tensor bev_reference_points_3d(int64_t bev_h, int64_t bev_w, double pillar_height,
                                   int64_t num_points_in_pillar, int64_t batch,
                                   const c10::TensorOptions& options) {
  const int64_t depth = num_points_in_pillar;
  const at::Tensor zs = (torch::linspace(0.5, pillar_height - 0.5, depth, options) / pillar_height)
                            .view({depth, 1, 1})
                            .expand({depth, bev_h, bev_w});
  const at::Tensor xs = cell_centres(bev_w, options).view({1, 1, bev_w}).expand_as(zs);
  const at::Tensor ys = cell_centres(bev_h, options).view({1, bev_h, 1}).expand_as(zs);
  const at::Tensor points = torch::stack({xs, ys, zs}, -1).flatten(1, 2);  // [D, h*w, 3]
  return points.unsqueeze(0).repeat({batch, 1, 1, 1});
}

at::Tensor bev_reference_points_2d(int64_t bev_h, int64_t bev_w, int64_t batch,
                                   const c10::TensorOptions& options) {
  const std::vector<at::Tensor> yx =
      torch::meshgrid({cell_centres(bev_h, options), cell_centres(bev_w, options)}, "ij");
  const at::Tensor points = torch::stack({yx[1].reshape(-1), yx[0].reshape(-1)}, -1);
  return points.unsqueeze(0).repeat({batch, 1, 1}).unsqueeze(2);
}

CameraReferencePoints project_reference_points(const at::Tensor& reference_points_3d,
                                               const BevRange& pc_range,
                                               const at::Tensor& lidar2img,
                                               std::pair<int64_t, int64_t> img_hw) {
  const int64_t batch = reference_points_3d.size(0), depth = reference_points_3d.size(1);
  const int64_t queries = reference_points_3d.size(2);
  if (lidar2img.dim() != 4 || lidar2img.size(0) != batch || lidar2img.size(2) != 4 ||
      lidar2img.size(3) != 4) {
    throw runtime_error("BEV point sampling: lidar2img must be [" + std::to_string(batch) +
                        ", N_cam, 4, 4]");
  }
  const int64_t num_cams = lidar2img.size(1);
  const AutocastOff float32;

  const at::Tensor ref = reference_points_3d.to(torch::kFloat);
  std::vector<at::Tensor> metres;
  for (int64_t axis = 0; axis < 3; ++axis) {
    const double low = pc_range[static_cast<size_t>(axis)];
    const double high = pc_range[static_cast<size_t>(axis) + 3];
    metres.push_back(ref.select(-1, axis) * (high - low) + low);
  }
  metres.push_back(torch::ones_like(metres[0]));
  // The original's batched 4x4 products, [D, B, N, Q, 4, 1], for the same rounding.
  const at::Tensor points = torch::stack(metres, -1)
                                .permute({1, 0, 2, 3})
                                .view({depth, batch, 1, queries, 4})
                                .expand({depth, batch, num_cams, queries, 4})
                                .unsqueeze(-1);
  const at::Tensor matrices = lidar2img.to(torch::kFloat)
                                  .view({1, batch, num_cams, 1, 4, 4})
                                  .expand({depth, batch, num_cams, queries, 4, 4});
  const at::Tensor cam = torch::matmul(matrices, points).squeeze(-1);  // [D, B, N, Q, 4]

  constexpr double kEps = 1e-5;
  const at::Tensor z = cam.narrow(-1, 2, 1);
  const at::Tensor uv = cam.narrow(-1, 0, 2) / torch::clamp_min(z, kEps);
  const at::Tensor u = uv.select(-1, 0) / static_cast<double>(img_hw.second);
  const at::Tensor v = uv.select(-1, 1) / static_cast<double>(img_hw.first);
  const at::Tensor mask = (z.squeeze(-1) > kEps) & (v > 0.0) & (v < 1.0) & (u < 1.0) & (u > 0.0);

  CameraReferencePoints out;
  out.points = torch::stack({u, v}, -1).permute({2, 1, 3, 0, 4});
  out.mask = mask.permute({2, 1, 3, 0});
  return out;
}

}  // namespace olv2
