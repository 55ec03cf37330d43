// The loader's batch images without copies: the loader hands each sample its slice of the
// batch tensor, the format bundle writes the images there when the sizes match, and collate
// takes consecutive slices as the batch itself.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <mutex>
#include <opencv2/core.hpp>
#include <random>
#include <vector>

#include "olv2/data/batch.h"
#include "olv2/data/data_loader.h"
#include "olv2/data/pipeline_data.h"
#include "olv2/data/sampler.h"
#include "olv2/data/transforms/format_bundle.h"

namespace olv2 {
namespace {

Sample sample_with_image(const at::Tensor& img, int64_t index) {
  Sample sample;
  sample.index = index;
  sample.img = img;
  sample.lidar2img = at::eye(4, at::kDouble).repeat({img.size(0), 1, 1});
  sample.can_bus = at::zeros({18}, at::kDouble);
  return sample;
}

// Three 4 x 5 cameras of 8-bit BGR, ready for the format bundle.
PipelineData three_cameras(const at::Tensor& images_into) {
  PipelineData data;
  for (int k = 0; k < 3; ++k) {
    data.images.emplace_back(4, 5, CV_8UC3, cv::Scalar(10 * k, 20, 30));
    data.img_shape.push_back({4, 5, 3});
  }
  data.images_into = images_into;
  return data;
}

TEST(BatchImages, TheFormatBundleWritesIntoTheGivenSliceOnlyWhenTheSizesMatch) {
  const at::Tensor batch = at::zeros({2, 3, 3, 4, 5}, at::kFloat);
  std::mt19937_64 rng(0);
  PipelineData into = three_cameras(batch[1]);
  FormatBundle().apply(into, rng);
  EXPECT_EQ(into.sample.img.data_ptr(), batch[1].data_ptr());
  EXPECT_EQ(batch[1][2][0][0][0].item<float>(), 20.0f);  // BGR 20 -> channel 0 (no to_rgb yet)
  EXPECT_FALSE(into.images_into.defined());              // handed out once

  PipelineData other_size = three_cameras(at::zeros({3, 3, 4, 6}, at::kFloat));
  FormatBundle().apply(other_size, rng);
  EXPECT_EQ(other_size.sample.img.sizes(), (std::vector<int64_t>{3, 3, 4, 5}));
  PipelineData none = three_cameras(at::Tensor());
  FormatBundle().apply(none, rng);
  EXPECT_TRUE(at::equal(none.sample.img, into.sample.img));
}

// From its second batch on the loader gives each sample its slice; a source that writes there
// yields a batch whose images are the loader's tensor, uncopied.
TEST(BatchImages, TheLoaderGivesEachSampleItsSliceFromTheSecondBatchOn) {
  std::vector<std::vector<bool>> slices_given(2);
  void* slice_of_index_2 = nullptr;
  std::mutex mutex;
  const SampleSource source = [&](int64_t index, int64_t /*epoch*/, const at::Tensor& images_into) {
    at::Tensor img = images_into.defined() ? images_into : at::empty({3, 3, 4, 5});
    img.fill_(static_cast<float>(index));
    {
      const std::lock_guard<std::mutex> lock(mutex);
      slices_given[static_cast<size_t>(index / 2)].push_back(images_into.defined());
      if (index == 2) slice_of_index_2 = img.data_ptr();
    }
    return std::optional<Sample>(sample_with_image(img, index));
  };
  SamplerOptions sampler;
  sampler.dataset_size = 4;
  DataLoaderOptions options;
  options.samples_per_gpu = 2;
  options.workers_per_gpu = 0;
  DataLoader loader(source, std::make_shared<DistributedSampler>(sampler, false), options);
  loader.start_epoch(0);
  const std::optional<Batch> first = loader.next();
  const std::optional<Batch> second = loader.next();
  ASSERT_TRUE(first && second);
  EXPECT_EQ(slices_given[0], (std::vector<bool>{false, false}));
  EXPECT_EQ(slices_given[1], (std::vector<bool>{true, true}));
  EXPECT_EQ(second->images.data_ptr(), slice_of_index_2);
  EXPECT_EQ(second->images[1][0][0][0][0].item<float>(), 3.0f);
}

TEST(BatchImages, CollateTakesConsecutiveSlicesAsTheBatchAndCopiesAnythingElse) {
  const at::Tensor batch = at::rand({3, 2, 3, 4, 5});
  const at::Tensor expected = batch.clone();

  std::vector<Sample> in_order;
  for (int64_t k = 0; k < 3; ++k) in_order.push_back(sample_with_image(batch[k], k));
  const Batch whole = collate(std::move(in_order));
  EXPECT_EQ(whole.images.data_ptr(), batch.data_ptr());
  EXPECT_TRUE(at::equal(whole.images, expected));

  std::vector<Sample> first_two;
  for (int64_t k = 0; k < 2; ++k) first_two.push_back(sample_with_image(batch[k], k));
  const Batch shorter = collate(std::move(first_two));
  EXPECT_EQ(shorter.images.data_ptr(), batch.data_ptr());
  EXPECT_TRUE(at::equal(shorter.images, expected.narrow(0, 0, 2)));

  std::vector<Sample> with_a_gap;
  with_a_gap.push_back(sample_with_image(batch[0], 0));
  with_a_gap.push_back(sample_with_image(batch[2], 2));
  const Batch copied = collate(std::move(with_a_gap));
  EXPECT_NE(copied.images.data_ptr(), batch.data_ptr());
  EXPECT_TRUE(at::equal(copied.images, at::stack({expected[0], expected[2]})));
}

}  // namespace
}  // namespace olv2
