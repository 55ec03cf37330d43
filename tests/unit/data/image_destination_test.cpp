// The format bundle's images written into the loader's batch tensor: a scope's slice is handed
// out once and only for its sizes, and collate takes consecutive slices as the batch itself.
#include "olv2/data/image_destination.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "olv2/data/batch.h"

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

TEST(ImageDestination, AScopesSliceIsHandedOutOnceAndOnlyForItsSizes) {
  const at::Tensor batch = at::empty({2, 3, 3, 4, 5}, at::kFloat);
  EXPECT_NE(image_destination({3, 3, 4, 5}).data_ptr(), batch.data_ptr());
  {
    const ImageDestinationScope scope(batch[1]);
    EXPECT_NE(image_destination({3, 3, 4, 6}).data_ptr(), batch[1].data_ptr());
    const at::Tensor taken = image_destination({3, 3, 4, 5});
    EXPECT_EQ(taken.data_ptr(), batch[1].data_ptr());
    EXPECT_NE(image_destination({3, 3, 4, 5}).data_ptr(), batch[1].data_ptr());
  }
  EXPECT_NE(image_destination({3, 3, 4, 5}).data_ptr(), batch[1].data_ptr());
}

TEST(ImageDestination, ScopesNestAndRestoreTheOuterSlice) {
  const at::Tensor outer = at::empty({3, 3, 2, 2}, at::kFloat);
  const at::Tensor inner = at::empty({3, 3, 2, 2}, at::kFloat);
  const ImageDestinationScope first(outer);
  {
    const ImageDestinationScope second(inner);
    EXPECT_EQ(image_destination({3, 3, 2, 2}).data_ptr(), inner.data_ptr());
  }
  EXPECT_EQ(image_destination({3, 3, 2, 2}).data_ptr(), outer.data_ptr());
}

TEST(ImageDestination, CollateTakesConsecutiveSlicesAsTheBatchAndCopiesAnythingElse) {
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
