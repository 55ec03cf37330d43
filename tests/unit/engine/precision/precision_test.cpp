// How a run's mixed-precision request is applied on CUDA and on CPUs with and without bf16
// instructions.
#include "olv2/engine/precision/precision.h"

#include <gtest/gtest.h>

namespace olv2 {
namespace {

PrecisionSettings requested(bool fp16, bool bf16) {
  PrecisionSettings settings;
  settings.fp16 = fp16;
  settings.bf16 = bf16;
  return settings;
}

const c10::Device kCpu(c10::kCPU);
const c10::Device kCuda(c10::kCUDA, 0);

TEST(Precision, Fp32WithoutARequest) {
  const Precision precision = resolve_precision(requested(false, false), kCpu, true);
  EXPECT_FALSE(precision.autocast.has_value());
  EXPECT_EQ(precision.scaler, nullptr);
  EXPECT_EQ(precision.description, "");
}

TEST(Precision, Fp16IsFp16AutocastWithTheScalerOnCuda) {
  for (const bool cpu_bf16 : {true, false}) {
    const Precision precision = resolve_precision(requested(true, false), kCuda, cpu_bf16);
    ASSERT_TRUE(precision.autocast.has_value());
    EXPECT_EQ(precision.autocast->dtype, c10::ScalarType::Half);
    EXPECT_NE(precision.scaler, nullptr);
    EXPECT_EQ(precision.description.rfind("mixed precision: fp16 autocast with ", 0), 0u)
        << precision.description;
  }
}

TEST(Precision, Fp16OnACpuWithBf16InstructionsIsBf16AutocastWithTheScaler) {
  const Precision precision = resolve_precision(requested(true, false), kCpu, true);
  ASSERT_TRUE(precision.autocast.has_value());
  EXPECT_TRUE(precision.autocast->enabled);
  EXPECT_EQ(precision.autocast->dtype, c10::ScalarType::BFloat16);
  EXPECT_NE(precision.scaler, nullptr);
  EXPECT_EQ(precision.description.rfind(
                "mixed precision: bf16 (fp16 is CUDA-only) autocast with DeepSpeed ", 0),
            0u)
      << precision.description;
}

TEST(Precision, Fp16OnACpuWithoutBf16InstructionsKeepsTheScalerInFp32) {
  const Precision precision = resolve_precision(requested(true, false), kCpu, false);
  EXPECT_FALSE(precision.autocast.has_value());
  EXPECT_NE(precision.scaler, nullptr);
  EXPECT_EQ(precision.description.rfind("mixed precision: fp32 (fp16 is CUDA-only, and this CPU "
                                        "has no bf16 instructions) with DeepSpeed ",
                                        0),
            0u)
      << precision.description;
}

TEST(Precision, Bf16IsBf16AutocastWithoutAScalerAndSaysWhenItIsEmulated) {
  const Precision native = resolve_precision(requested(false, true), kCpu, true);
  ASSERT_TRUE(native.autocast.has_value());
  EXPECT_EQ(native.autocast->dtype, c10::ScalarType::BFloat16);
  EXPECT_EQ(native.scaler, nullptr);
  EXPECT_EQ(native.description, "mixed precision: bf16 autocast, no loss scaler");
  const Precision emulated = resolve_precision(requested(false, true), kCpu, false);
  ASSERT_TRUE(emulated.autocast.has_value());
  EXPECT_EQ(emulated.autocast->dtype, c10::ScalarType::BFloat16);
  EXPECT_EQ(emulated.description,
            "mixed precision: bf16 autocast, no loss scaler (this CPU has no bf16 instructions: "
            "LibTorch emulates them)");
}

}  // namespace
}  // namespace olv2
