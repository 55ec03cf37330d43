// The GPU memory cap on a machine without a GPU (the suite's machines); tests/cuda/ covers a
// machine with one.
#include "olv2/util/cuda_memory_cap.h"

#include <gtest/gtest.h>

#include "olv2/util/error.h"

namespace olv2 {
namespace {

TEST(CudaMemoryCap, OnTheCpuItIsReportedAsNotApplicable) {
  EXPECT_EQ(apply_cuda_memory_cap(c10::Device(c10::kCPU), 16.0),
            "GPU memory cap 16.00 GiB: not applicable on the CPU");
}

TEST(CudaMemoryCap, ACapOfZeroOrBelowIsAnInputError) {
  for (const double gib : {0.0, -1.0}) {
    try {
      apply_cuda_memory_cap(c10::Device(c10::kCPU), gib);
      ADD_FAILURE() << gib << " was accepted";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find("--cuda-memory-cap"), std::string::npos)
          << error.what();
    }
  }
}

}  // namespace
}  // namespace olv2
