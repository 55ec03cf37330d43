// The original benchmark's resolution change of a fixture sample: the image grows by the
// scale, the camera projection follows it, so a point in the ego frame lands on the scaled
// pixel, and the traffic-element boxes scale with it.
#include "olv2/data/fixture_sample.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace olv2 {
namespace {

Batch scaled_sample_input() {
  Batch batch;
  // Two cameras, valid 6 x 8 inside a 8 x 8 padded image.
  batch.images = torch::zeros({1, 2, 3, 8, 8});
  batch.images.narrow(3, 0, 6).copy_(torch::rand({1, 2, 3, 6, 8}));
  batch.lidar2img = torch::eye(4, torch::kDouble).repeat({1, 2, 1, 1});
  batch.lidar2img[0][1][0][2] = 4.0;  // principal point x of camera 1
  batch.can_bus = torch::zeros({1, 18}, torch::kDouble);
  ImageMeta meta;
  meta.img_shape = {{6, 8, 3}, {6, 8, 3}};
  meta.pad_shape = {{8, 8, 3}, {8, 8, 3}};
  batch.metas.push_back(meta);
  batch.gt_te = {torch::tensor({{1.0f, 2.0f, 3.0f, 4.0f}})};
  return batch;
}

TEST(FixtureSample, ScalingResizesTheValidImageAndTheProjection) {
  const Batch in = scaled_sample_input();
  const Batch out = scale_fixture_sample(in, 2);
  ASSERT_EQ(out.images.sizes(), (std::vector<int64_t>{1, 2, 3, 16, 16}));
  EXPECT_EQ(out.metas[0].img_shape[1], (std::array<int64_t, 3>{12, 16, 3}));
  EXPECT_EQ(out.metas[0].pad_shape[0], (std::array<int64_t, 3>{16, 16, 3}));
  // The padding stays zero; the valid part is the bilinear resize of the valid part.
  EXPECT_EQ(out.images.narrow(3, 12, 4).abs().max().item<float>(), 0.0f);
  const at::Tensor expected = torch::nn::functional::interpolate(
      in.images[0].narrow(2, 0, 6), torch::nn::functional::InterpolateFuncOptions()
                                        .size(std::vector<int64_t>{12, 16})
                                        .mode(torch::kBilinear)
                                        .align_corners(false));
  EXPECT_TRUE(torch::equal(out.images[0].narrow(2, 0, 12), expected));
  // A point at depth 2 projects to twice its pixel coordinates.
  const at::Tensor point = torch::tensor({3.0, 1.0, 2.0, 1.0}, torch::kDouble);
  const at::Tensor before = torch::matmul(in.lidar2img[0][1], point);
  const at::Tensor after = torch::matmul(out.lidar2img[0][1], point);
  EXPECT_DOUBLE_EQ((after[0] / after[2]).item<double>(),
                   2 * (before[0] / before[2]).item<double>());
  EXPECT_DOUBLE_EQ((after[1] / after[2]).item<double>(),
                   2 * (before[1] / before[2]).item<double>());
  EXPECT_TRUE(torch::equal(out.gt_te[0], in.gt_te[0] * 2));
  // The input is left as it was.
  EXPECT_EQ(in.lidar2img[0][1][0][2].item<double>(), 4.0);
}

TEST(FixtureSample, ScaleOneIsTheSampleAndBelowOneIsAnError) {
  const Batch in = scaled_sample_input();
  EXPECT_TRUE(torch::equal(scale_fixture_sample(in, 1).images, in.images));
  EXPECT_THROW(scale_fixture_sample(in, 0), std::exception);
}

}  // namespace
}  // namespace olv2
