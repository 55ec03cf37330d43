// Once installed, CPU tensors and OpenCV images of 1 MiB or more come from the shared block
// cache and reuse each other's freed memory; smaller ones stay with their libraries' own
// allocators; the values computed do not change.
#include "olv2/util/large_block_allocator.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <opencv2/core.hpp>

#include "olv2/util/platform.h"

namespace olv2 {
namespace {

void install_once() {
  install_large_block_allocator();
  ASSERT_TRUE(large_block_allocator_installed());
}

bool page_aligned(const void* pointer) {
  return reinterpret_cast<uintptr_t>(pointer) % platform::page_size() == 0;
}

TEST(LargeBlockAllocator, ALargeTensorReusesTheBlockOfTheOneFreedBeforeIt) {
  install_once();
  const BlockCache::Stats before = large_block_stats();
  const void* first_data = nullptr;
  {
    const at::Tensor first = at::empty({1 << 20}, at::kFloat);  // 4 MiB
    first_data = first.data_ptr();
    EXPECT_TRUE(page_aligned(first_data));
    EXPECT_GE(large_block_stats().live_bytes, before.live_bytes + (size_t{4} << 20));
  }
  const at::Tensor second = at::ones({1 << 20}, at::kFloat);
  EXPECT_EQ(second.data_ptr(), first_data);
  EXPECT_EQ(large_block_stats().reused, before.reused + 1);
  EXPECT_EQ(second.sum().item<double>(), static_cast<double>(1 << 20));
}

TEST(LargeBlockAllocator, SmallTensorsStayWithLibTorchsAllocator) {
  install_once();
  const BlockCache::Stats before = large_block_stats();
  const at::Tensor small = at::arange(1000, at::kFloat);
  EXPECT_EQ(large_block_stats().live_bytes, before.live_bytes);
  EXPECT_EQ(large_block_stats().mapped, before.mapped);
  EXPECT_FLOAT_EQ(small.sum().item<float>(), 499500.0F);
}

TEST(LargeBlockAllocator, ALargeImageAndALargeTensorShareTheCache) {
  install_once();
  const void* image_data = nullptr;
  {
    cv::Mat image(1024, 1024, CV_32FC1, cv::Scalar(2.0F));  // 4 MiB
    ASSERT_TRUE(image.isContinuous());
    EXPECT_EQ(image.step[0], 1024 * sizeof(float));
    EXPECT_TRUE(page_aligned(image.data));
    EXPECT_FLOAT_EQ(static_cast<float>(cv::sum(image)[0]), 2.0F * 1024 * 1024);
    image_data = image.data;
  }
  const at::Tensor tensor = at::zeros({1024, 1024}, at::kFloat);
  EXPECT_EQ(tensor.data_ptr(), image_data);
  EXPECT_EQ(tensor.abs().max().item<float>(), 0.0F);
}

TEST(LargeBlockAllocator, ImagesOfEveryShapeGetDenseSteps) {
  install_once();
  const BlockCache::Stats before = large_block_stats();
  const int sizes[] = {4, 1024, 400};
  cv::Mat volume(3, sizes, CV_8UC3, cv::Scalar(1, 2, 3));  // 4.9 MB
  EXPECT_EQ(large_block_stats().live_bytes, before.live_bytes + 4u * 1024 * 400 * 3);
  EXPECT_EQ(volume.step[2], 3u);
  EXPECT_EQ(volume.step[1], 400u * 3);
  EXPECT_EQ(volume.step[0], 1024u * 400 * 3);
  EXPECT_EQ(volume.at<cv::Vec3b>(3, 1023, 399), cv::Vec3b(1, 2, 3));
  cv::Mat small(10, 10, CV_8UC1, cv::Scalar(5));
  EXPECT_EQ(cv::sum(small)[0], 500.0);
  cv::Mat copy = volume.clone();
  EXPECT_EQ(copy.at<cv::Vec3b>(0, 0, 0), cv::Vec3b(1, 2, 3));
}

}  // namespace
}  // namespace olv2
