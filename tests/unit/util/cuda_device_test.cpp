// The device a run takes and what the environment block says of the CUDA build, on a machine
// without a GPU (the suite's machines); tests/cuda/ covers a machine with one.
#include "olv2/util/cuda_device.h"

#include <ATen/Context.h>
#include <gtest/gtest.h>

#include <regex>

#include "olv2/util/determinism.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

TEST(CudaDevice, TheBuildsCudaIsReportedAsCMakeFoundIt) {
  const CudaSetup setup = cuda_setup();
  EXPECT_EQ(setup.built_with_cuda, static_cast<bool>(OLV2_BUILT_WITH_CUDA));
  const std::string described = describe_cuda_build(setup);
  if (setup.built_with_cuda) {
    EXPECT_EQ(described.rfind("CUDA ", 0), 0U) << described;
    const std::regex version("[1-9][0-9]?\\.[0-9]+(\\.[0-9]+)?");
    EXPECT_TRUE(std::regex_match(setup.cuda_runtime, version)) << setup.cuda_runtime;
    EXPECT_TRUE(std::regex_match(setup.cudnn, version)) << setup.cudnn;
    EXPECT_TRUE(std::regex_match(setup.nccl, version)) << setup.nccl;
  } else {
    EXPECT_EQ(described, "CPU only");
  }
}

TEST(CudaDevice, WithoutAVisibleGpuARunTakesTheCpu) {
  if (cuda_setup().visible_gpus > 0) GTEST_SKIP() << "a GPU is visible here";
  EXPECT_EQ(select_training_device(0), c10::Device(c10::kCPU));
  EXPECT_EQ(select_training_device(3), c10::Device(c10::kCPU));
}

TEST(CudaDevice, DeviceFlagChoosesTheCpuOrRequiresAGpu) {
  EXPECT_EQ(select_training_device(0, device_choice_from_flag("cpu")), c10::Device(c10::kCPU));
  EXPECT_THROW(device_choice_from_flag("gpu"), Error);
  if (cuda_setup().visible_gpus > 0) GTEST_SKIP() << "a GPU is visible here";
  try {
    select_training_device(0, device_choice_from_flag("cuda"));
    ADD_FAILURE() << "--device cuda took a device without a visible GPU";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()).rfind("--device cuda: ", 0), 0U) << error.what();
  }
}

TEST(CudaDevice, ADriverOfAnOlderCudaMajorVersionIsAProblemNamingBoth) {
  EXPECT_EQ(cuda_driver_problem(0, 13000), "") << "no driver: the CPU, without a problem";
  EXPECT_EQ(cuda_driver_problem(13000, 13000), "");
  EXPECT_EQ(cuda_driver_problem(13020, 13000), "");
  EXPECT_EQ(cuda_driver_problem(13000, 13020), "") << "minor-version compatibility";
  const std::string problem = cuda_driver_problem(12080, 13000);
  EXPECT_NE(problem.find("supports CUDA up to 12.8"), std::string::npos) << problem;
  EXPECT_NE(problem.find("needs CUDA 13.0"), std::string::npos) << problem;
  EXPECT_NE(problem.find("CUDA_VISIBLE_DEVICES=-1"), std::string::npos) << problem;
}

// A CUDA run cannot be deterministic everywhere (grid_sample's backward has no deterministic
// CUDA kernel): there the mode warns instead of stopping the first backward; the CPU stays
// strict.
TEST(Determinism, StrictOnTheCpuWarnOnlyOnCuda) {
  at::Context& context = at::globalContext();
  const bool was = context.deterministicAlgorithms();
  const bool was_warn_only = context.deterministicAlgorithmsWarnOnly();
  use_deterministic_algorithms(c10::Device(c10::kCPU));
  EXPECT_TRUE(deterministic_algorithms());
  EXPECT_FALSE(context.deterministicAlgorithmsWarnOnly());
  EXPECT_EQ(deterministic_algorithms_description(), "true");
  use_deterministic_algorithms(c10::Device(c10::kCUDA, 0));
  EXPECT_TRUE(context.deterministicAlgorithmsWarnOnly());
  EXPECT_NE(deterministic_algorithms_description().find("grid_sampler_2d_backward"),
            std::string::npos);
  context.setDeterministicAlgorithms(was, was_warn_only);
}

}  // namespace
}  // namespace olv2
