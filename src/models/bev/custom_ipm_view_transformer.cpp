#include "olv2/models/bev/custom_ipm_view_transformer.h"

#include <torch/torch.h>

#include <cmath>
#include <vector>

#include "olv2/config/section_readers.h"
#include "olv2/models/activation_checkpoint.h"
#include "olv2/util/autocast_guard.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema CustomIpmViewTransformerOptions::schema() {
  Schema schema = typed_schema("CustomIPMViewTransformer");
  schema.required("num_cam", Schema::integer())
      .required("xbound", numbers_schema())
      .required("ybound", numbers_schema())
      .required("zbound", numbers_schema())
      .required("out_channels", Schema::integer());
  return schema;
}

CustomIpmViewTransformerOptions CustomIpmViewTransformerOptions::from_config(
    const ConfigNode& section) {
  CustomIpmViewTransformerOptions o;
  o.num_cam = section.at("num_cam").as_int();
  o.xbound = fixed_numbers<3>(section.at("xbound"));
  o.ybound = fixed_numbers<3>(section.at("ybound"));
  o.zbound = fixed_numbers<3>(section.at("zbound"));
  o.out_channels = section.at("out_channels").as_int();
  return o;
}

std::shared_ptr<BevConstructorImpl> CustomIpmViewTransformerOptions::build(
    bool checkpointed) const {
  CustomIpmViewTransformerOptions options = *this;
  options.checkpointed = checkpointed;
  return std::make_shared<CustomIpmViewTransformerImpl>(options);
}
namespace {

// Heights z0 + i*step for i = 0 .. floor((z1 - z0) / step), in Python float
// arithmetic.
std::vector<double> plane_heights(const std::array<double, 3>& zbound) {
  const auto count = static_cast<int64_t>(std::floor((zbound[1] - zbound[0]) / zbound[2])) + 1;
  std::vector<double> heights;
  for (int64_t i = 0; i < count; ++i)
    heights.push_back(zbound[0] + static_cast<double>(i) * zbound[2]);
  return heights;
}

// [ny, nx, 3] plane at `height`. The original uses an inclusive float32
// linspace with int((max - min) / step) points, so the spacing is not exactly
// `step`.
at::Tensor plane_grid(const std::array<double, 3>& xbound, const std::array<double, 3>& ybound,
                      double height) {
  const auto nx = static_cast<int64_t>((xbound[1] - xbound[0]) / xbound[2]);
  const auto ny = static_cast<int64_t>((ybound[1] - ybound[0]) / ybound[2]);
  const at::Tensor x = torch::linspace(xbound[0], xbound[1], nx, torch::kFloat);
  const at::Tensor y = torch::linspace(ybound[0], ybound[1], ny, torch::kFloat);
  std::vector<at::Tensor> yx = torch::meshgrid({y, x}, "ij");
  const at::Tensor z = torch::ones_like(yx[1]) * height;
  return torch::stack({yx[1], yx[0], z}, -1);
}

// Sum over the cameras of each camera's bilinear feature at the plane points it sees:
// [B, C, P]. The original samples every point in every camera and multiplies the unseen ones
// by 0; sampling only the seen ones adds the same terms in the same camera order.
// cam_feat [B * N, C, h, w], sample_grid [B * N, P, 2], seen [B, N, P] bool.
at::Tensor seen_feature_sum(const at::Tensor& cam_feat, const at::Tensor& sample_grid,
                            const at::Tensor& seen) {
  namespace F = torch::nn::functional;
  const int64_t batch = seen.size(0), num_cam = seen.size(1), num_points = seen.size(2);
  std::vector<at::Tensor> sums;
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<at::Tensor> samples, points;
    for (int64_t n = 0; n < num_cam; ++n) {
      const int64_t cam = b * num_cam + n;
      const at::Tensor index = seen[b][n].nonzero().squeeze(1);
      const at::Tensor grid = sample_grid[cam].index_select(0, index).view({1, 1, -1, 2});
      samples.push_back(F::grid_sample(cam_feat.narrow(0, cam, 1), grid,
                                       F::GridSampleFuncOptions()
                                           .mode(torch::kBilinear)
                                           .padding_mode(torch::kZeros)
                                           .align_corners(false))
                            .flatten(0, 2));  // [C, k]
      points.push_back(index);
    }
    // In grid_sample's output dtype, which autocast may choose.
    const at::Tensor seen_samples = torch::cat(samples, 1);
    sums.push_back(torch::zeros({cam_feat.size(1), num_points}, seen_samples.options())
                       .index_add(1, torch::cat(points), seen_samples));
  }
  return torch::stack(sums);
}

}  // namespace

CustomIpmViewTransformerImpl::CustomIpmViewTransformerImpl(
    const CustomIpmViewTransformerOptions& options)
    : options_(options) {
  for (const auto* bound : {&options.xbound, &options.ybound, &options.zbound}) {
    if (!((*bound)[2] > 0.0) || !((*bound)[1] > (*bound)[0])) {
      throw input_error(
          "CustomIPMViewTransformer: a bound must be [min, max, "
          "step] with max > min "
          "and step > 0");
    }
  }
  const std::vector<double> heights = plane_heights(options.zbound);
  const auto in_channels = (options.out_channels + 3) * static_cast<int64_t>(heights.size());
  outconvs_ = register_module(
      "outconvs",
      torch::nn::Conv2d(
          torch::nn::Conv2dOptions(in_channels, options.out_channels, 3).stride(1).padding(1)));
  std::vector<at::Tensor> planes;
  for (double height : heights)
    planes.push_back(plane_grid(options.xbound, options.ybound, height));
  bev_planes_ = register_buffer("bev_planes", torch::stack(planes));
}

at::Tensor CustomIpmViewTransformerImpl::forward(const at::Tensor& cam_feat,
                                                 const at::Tensor& ego2cam,
                                                 std::pair<int64_t, int64_t> img_hw) {
  const int64_t batch = ego2cam.size(0);
  const int64_t num_cam = ego2cam.size(1);
  const int64_t channels = cam_feat.size(1);
  if (num_cam != options_.num_cam) {
    throw input_error("CustomIPMViewTransformer: num_cam is " + std::to_string(options_.num_cam) +
                      ", the frames have " + std::to_string(num_cam) +
                      " cameras (subset A has 7, subset B 6)");
  }
  if (cam_feat.size(0) != batch * num_cam) {
    throw runtime_error("CustomIPMViewTransformer: " + std::to_string(cam_feat.size(0)) +
                        " camera feature maps for " + std::to_string(batch) + " x " +
                        std::to_string(num_cam) + " cameras");
  }
  const int64_t levels = bev_planes_.size(0), ny = bev_planes_.size(1), nx = bev_planes_.size(2);
  const int64_t num_points = levels * ny * nx;

  const at::Tensor grid = bev_planes_.unsqueeze(0).repeat({batch, 1, 1, 1, 1}).flatten(1, 3);
  at::Tensor mask;
  at::Tensor sample_grid;
  {
    // Projection of every plane point into every camera, with the original's batched 4x4
    // products, in fp32 under autocast: in bf16 or fp16 the products lose whole pixels and
    // near-zero depths turn into NaN.
    const AutocastOff float32;
    const at::Tensor points = torch::cat({grid, torch::ones_like(grid.narrow(-1, 0, 1))}, -1)
                                  .view({batch, 1, num_points, 4})
                                  .repeat({1, num_cam, 1, 1})
                                  .unsqueeze(-1);
    const at::Tensor matrices =
        ego2cam.to(grid.dtype()).view({batch, num_cam, 1, 4, 4}).repeat({1, 1, num_points, 1, 1});
    const at::Tensor cam_points = torch::matmul(matrices, points).squeeze(-1);

    constexpr double kEps = 1e-9;
    const at::Tensor depth = cam_points.narrow(-1, 2, 1);
    mask = depth > kEps;
    // The original adds eps after the division (operator precedence), and
    // normalises by the un-padded image size although the features cover the
    // padded one.
    at::Tensor pixels = cam_points.narrow(-1, 0, 2) / depth + kEps;
    const at::Tensor u = (pixels.select(-1, 0) / static_cast<double>(img_hw.second) - 0.5) * 2;
    const at::Tensor v = (pixels.select(-1, 1) / static_cast<double>(img_hw.first) - 0.5) * 2;
    mask = mask.squeeze(-1) & (u > -1.0) & (u < 1.0) & (v > -1.0) & (v < 1.0);
    sample_grid = torch::stack({u, v}, -1).view({batch * num_cam, num_points, 2});
  }

  const at::Tensor seen = mask.view({batch, num_cam, num_points});
  const at::Tensor summed =
      seen_feature_sum(cam_feat, sample_grid, seen).view({batch, channels, levels, ny, nx});
  const at::Tensor count = seen.sum(1).view({batch, 1, levels, ny, nx});
  const at::Tensor averaged = summed / count.masked_fill(count == 0, 1);

  const at::Tensor coords = grid.view({batch, levels, ny, nx, 3}).permute({0, 4, 1, 2, 3});
  // Channel-major merge: input channel c * levels + level.
  const at::Tensor merged = torch::cat({averaged, coords}, 1).flatten(1, 2);
  return outconvs_(merged);
}

at::Tensor CustomIpmViewTransformerImpl::forward(const std::vector<at::Tensor>& levels,
                                                 const Batch& batch) {
  if (levels.size() != 1) {
    throw input_error(
        "model.img_neck: the view transformer takes one feature level, the neck gives " +
        std::to_string(levels.size()));
  }
  const at::Tensor cam_feat = levels.front().flatten(0, 1);
  const at::Tensor ego2cam = batch.lidar2img.to(cam_feat.device(), torch::kFloat);
  const std::array<int64_t, 3>& shape = batch.metas.at(0).img_shape.at(0);
  const std::pair<int64_t, int64_t> img_hw{shape[0], shape[1]};
  if (!(options_.checkpointed && is_training() && torch::GradMode::is_enabled())) {
    return forward(cam_feat, ego2cam, img_hw);
  }
  auto body = [this, ego2cam, img_hw](const at::Tensor& f) { return forward(f, ego2cam, img_hw); };
  return checkpoint(body, cam_feat, parameters());
}

}  // namespace olv2
