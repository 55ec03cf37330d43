#pragma once
#include <gtest/gtest.h>

#include <string>

namespace olv2::test {

// Why no CUDA device can run a test here, or empty when one can.
std::string cuda_unavailable_reason();

// True under OLV2_REQUIRE_CUDA=1 (a GPU machine's check): a missing device is then a failure.
bool cuda_required();

}  // namespace olv2::test

// Skips the current test when no CUDA device is usable, naming why; fails instead under
// OLV2_REQUIRE_CUDA=1.
#define OLV2_REQUIRE_CUDA()                                                              \
  if (const std::string olv2_no_cuda = ::olv2::test::cuda_unavailable_reason();         \
      !olv2_no_cuda.empty()) {                                                           \
    if (::olv2::test::cuda_required()) FAIL() << "OLV2_REQUIRE_CUDA=1: " << olv2_no_cuda; \
    GTEST_SKIP() << olv2_no_cuda;                                                        \
  }
