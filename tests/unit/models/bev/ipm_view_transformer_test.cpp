#include <gtest/gtest.h>
#include <torch/torch.h>

#include "olv2/models/bev/custom_ipm_view_transformer.h"

namespace olv2 {
namespace {

// Pinhole cameras on the ego origin: one looks forward (depth = x), one backward (depth = -x),
// and one whose depth is -1 everywhere, so that it sees no point.
at::Tensor three_cameras() {
  const double f = 20.0, cx = 40.0, cy = 30.0;
  const at::Tensor forward = torch::tensor(
      {{cx, -f, 0.0, 0.0}, {cy, 0.0, -f, 0.0}, {1.0, 0.0, 0.0, 0.0}, {0.0, 0.0, 0.0, 1.0}});
  const at::Tensor backward = torch::tensor(
      {{-cx, -f, 0.0, 0.0}, {-cy, 0.0, -f, 0.0}, {-1.0, 0.0, 0.0, 0.0}, {0.0, 0.0, 0.0, 1.0}});
  const at::Tensor blind = torch::tensor(
      {{0.0, 1.0, 0.0, 0.0}, {0.0, 0.0, 1.0, 0.0}, {0.0, 0.0, 0.0, -1.0}, {0.0, 0.0, 0.0, 1.0}});
  return torch::stack({forward, backward, blind}).to(torch::kFloat).unsqueeze(0);
}

CustomIpmViewTransformerOptions small_grid() {
  CustomIpmViewTransformerOptions options;
  options.num_cam = 3;
  options.xbound = {-10.0, 10.0, 1.0};
  options.ybound = {-5.0, 5.0, 1.0};
  options.zbound = {-1.0, 1.0, 1.0};
  options.out_channels = 4;
  return options;
}

// The original's formulation: every point sampled in every camera, the unseen ones times 0.
at::Tensor dense_average(const at::Tensor& cam_feat, const at::Tensor& bev_planes,
                         const at::Tensor& ego2cam, double img_h, double img_w) {
  const int64_t levels = bev_planes.size(0), ny = bev_planes.size(1), nx = bev_planes.size(2);
  const at::Tensor points =
      torch::cat({bev_planes.reshape({-1, 3}), torch::ones({levels * ny * nx, 1})}, 1);
  const at::Tensor cam = torch::matmul(ego2cam[0].unsqueeze(1), points.unsqueeze(-1)).squeeze(-1);
  const at::Tensor depth = cam.narrow(-1, 2, 1);
  const at::Tensor pixels = cam.narrow(-1, 0, 2) / depth + 1e-9;
  const at::Tensor u = (pixels.select(-1, 0) / img_w - 0.5) * 2;
  const at::Tensor v = (pixels.select(-1, 1) / img_h - 0.5) * 2;
  const at::Tensor seen = (depth.squeeze(-1) > 1e-9) & (u > -1) & (u < 1) & (v > -1) & (v < 1);
  namespace F = torch::nn::functional;
  const at::Tensor sampled = F::grid_sample(cam_feat, torch::stack({u, v}, -1).unsqueeze(1),
                                            F::GridSampleFuncOptions()
                                                .mode(torch::kBilinear)
                                                .padding_mode(torch::kZeros)
                                                .align_corners(false));  // [N, C, 1, P]
  const at::Tensor mask = seen.unsqueeze(1).unsqueeze(1);
  const at::Tensor count = mask.sum(0);
  return ((sampled * mask).sum(0) / count.masked_fill(count == 0, 1))
      .view({cam_feat.size(1), levels, ny, nx});
}

TEST(CustomIpmViewTransformer, SamplingOnlySeenPointsEqualsTheOriginalsDenseAverage) {
  torch::manual_seed(2);
  CustomIpmViewTransformer ipm(small_grid());
  const at::Tensor cam_feat = torch::randn({3, 4, 6, 8}, torch::requires_grad());
  const at::Tensor ego2cam = three_cameras();
  const at::Tensor bev = ipm->forward(cam_feat, ego2cam, {60, 80});

  const at::Tensor averaged = dense_average(cam_feat, ipm->bev_planes(), ego2cam, 60, 80);
  const at::Tensor coords = ipm->bev_planes().permute({3, 0, 1, 2});
  const at::Tensor merged = torch::cat({averaged, coords}, 0).flatten(0, 1).unsqueeze(0);
  const auto& conv = *ipm->named_children()["outconvs"]->as<torch::nn::Conv2dImpl>();
  const at::Tensor expected = torch::conv2d(merged, conv.weight, conv.bias, 1, 1);
  EXPECT_TRUE(torch::allclose(bev, expected, 1e-5, 1e-5));

  const at::Tensor upstream = torch::randn_like(bev);
  const at::Tensor grad = torch::autograd::grad({(bev * upstream).sum()}, {cam_feat})[0];
  const at::Tensor expected_grad =
      torch::autograd::grad({(expected * upstream).sum()}, {cam_feat})[0];
  EXPECT_TRUE(torch::allclose(grad, expected_grad, 1e-5, 1e-5));
  // Both seeing cameras contribute; the blind one gets no gradient.
  EXPECT_GT(grad[0].abs().sum().item<double>(), 0.0);
  EXPECT_GT(grad[1].abs().sum().item<double>(), 0.0);
  EXPECT_EQ(grad[2].abs().sum().item<double>(), 0.0);
}

}  // namespace
}  // namespace olv2
