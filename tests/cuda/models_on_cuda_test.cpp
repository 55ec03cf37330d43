// The three fixture models on a GPU against the same step on the CPU, fp32 with TF32 off and
// deterministic cuDNN, under the CPU step's matchings: every loss term and every parameter's
// gradient; then an fp16 autocast step against fp32 on the GPU under the same matchings. Each
// comparison prints its five largest differences, pass or fail.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "olv2/util/autocast_guard.h"
#include "parity/fp32_step_tolerances.h"
#include "parity/seeded_fixture_models.h"
#include "support/cuda_requirement.h"
#include "support/replayed_matchings.h"
#include "support/step_comparison.h"
#include "support/strict_cuda_math.h"
#include "support/training_step.h"

namespace olv2::test {
namespace {

const c10::Device kGpu(c10::kCUDA, 0);

// How far an fp16 autocast step's loss terms may be from fp32's under the same matchings,
// relative to each term (a term below 1e-2 against 1e-2). fp16 keeps 11 significant bits
// (a relative rounding of 4.9e-4 per operation), and each term sums the rounding of a few
// thousand products through about thirty layers; a broken fp16 path (an overflow, a kernel
// computing in the wrong type, a loss not computed in fp32) moves a term by far more.
constexpr double kFp16TermTolerance = 5e-2;
constexpr double kFp16TermFloor = 1e-2;

// Prints a comparison's worst entries, pass or fail (the GPU check's log keeps them), and
// fails the test for each entry over `tolerance`.
void expect_within(const Comparison& comparison, double tolerance) {
  std::printf("%s", comparison.worst().c_str());
  std::fflush(stdout);
  for (const std::string& failure : comparison.failures(tolerance)) ADD_FAILURE() << failure;
}

// The steps one test compares: the CPU's, recording its matchings, and the GPU's replaying
// them.
struct CpuAndGpuSteps {
  StepResult cpu;
  StepResult gpu;
  std::shared_ptr<MatchingLog> matchings = std::make_shared<MatchingLog>();
};

// A GPU step of a fresh `model` under the CPU step's matchings; every one of them replayed.
StepResult gpu_step_replaying(FixtureModel model, const Batch& batch,
                              const std::shared_ptr<MatchingLog>& matchings,
                              AutocastState autocast = {}) {
  matchings->rewind();
  StepResult step = training_step(*seeded_fixture_model(model, Matchings::kReplay, matchings),
                                  batch, kGpu, autocast);
  EXPECT_EQ(matchings->replayed(), matchings->size())
      << name_of(model) << ": every matching of the CPU step replayed on the GPU";
  return step;
}

CpuAndGpuSteps cpu_and_gpu_steps(FixtureModel model, const Batch& batch) {
  CpuAndGpuSteps steps;
  steps.cpu = training_step(*seeded_fixture_model(model, Matchings::kRecord, steps.matchings),
                            batch, c10::Device(c10::kCPU));
  steps.gpu = gpu_step_replaying(model, batch, steps.matchings);
  return steps;
}

void expect_gpu_step_equals_the_cpu(FixtureModel model, const Batch& batch) {
  const StrictCudaMath strict_math;
  const CpuAndGpuSteps steps = cpu_and_gpu_steps(model, batch);
  const std::string name = name_of(model);
  const double tolerance = fp32_step_tolerance(model);
  expect_within(compare_losses(steps.gpu, steps.cpu, name + ": loss terms, GPU against CPU"),
                tolerance);
  expect_within(compare_gradients(steps.gpu, steps.cpu, name + ": gradients, GPU against CPU"),
                tolerance);
}

TEST(ModelsOnCuda, BaselineLossesAndGradientsEqualTheCpu) {
  OLV2_REQUIRE_CUDA();
  OLV2_REQUIRE_FIXTURE(input_path, "baseline_input.pt");
  expect_gpu_step_equals_the_cpu(FixtureModel::kBaseline, fixture_input(input_path));
}

TEST(ModelsOnCuda, BaselineLargeLossesAndGradientsEqualTheCpu) {
  OLV2_REQUIRE_CUDA();
  OLV2_REQUIRE_FIXTURE(input_path, "baseline_large_input.pt");
  expect_gpu_step_equals_the_cpu(FixtureModel::kBaselineLarge, fixture_input(input_path));
}

TEST(ModelsOnCuda, TopoNetLossesAndGradientsEqualTheCpu) {
  OLV2_REQUIRE_CUDA();
  expect_gpu_step_equals_the_cpu(FixtureModel::kTopoNet, toponet_fixture_batch({0}));
}

// An fp16 autocast step on the GPU against fp32 on the GPU, both under the CPU step's
// matchings: every term within kFp16TermTolerance, and every term and gradient finite (fp16
// gradients are not bounded: cancellation in fp16 moves small ones by more than any useful
// bound).
void expect_fp16_step_close_to_fp32(FixtureModel model, const Batch& batch) {
  const std::string name = name_of(model);
  const StrictCudaMath strict_math;
  const CpuAndGpuSteps steps = cpu_and_gpu_steps(model, batch);
  const StepResult fp16 =
      gpu_step_replaying(model, batch, steps.matchings, AutocastState{true, c10::ScalarType::Half});
  expect_within(compare_losses(fp16, steps.gpu, name + ": loss terms, fp16 autocast against fp32",
                               kFp16TermFloor),
                kFp16TermTolerance);
  double total16 = 0.0, total32 = 0.0;
  for (const auto& [term, expected] : steps.gpu.losses) {
    const double actual = fp16.losses.at(term);
    EXPECT_TRUE(std::isfinite(actual)) << name << ": " << term << " is " << actual << " in fp16";
    total16 += actual;
    total32 += expected;
  }
  std::printf("%s: total loss fp16 %.6f, fp32 %.6f, relative difference %.3e\n", name.c_str(),
              total16, total32, std::abs(total16 - total32) / std::abs(total32));
  int64_t not_finite = 0;
  for (const auto& [parameter, grad] : fp16.grads) {
    if (!grad.isfinite().all().item<bool>()) {
      ADD_FAILURE() << name << ": " << parameter << ": a gradient that is not finite in fp16";
      ++not_finite;
    }
  }
  std::printf("%s: %zu fp16 gradients, %lld not finite\n", name.c_str(), fp16.grads.size(),
              static_cast<long long>(not_finite));
  std::fflush(stdout);
}

TEST(ModelsOnCuda, AnFp16AutocastStepIsFiniteWithLossTermsCloseToFp32) {
  OLV2_REQUIRE_CUDA();
  OLV2_REQUIRE_FIXTURE(input_path, "baseline_input.pt");
  OLV2_REQUIRE_FIXTURE(large_input_path, "baseline_large_input.pt");
  expect_fp16_step_close_to_fp32(FixtureModel::kBaseline, fixture_input(input_path));
  expect_fp16_step_close_to_fp32(FixtureModel::kBaselineLarge, fixture_input(large_input_path));
  expect_fp16_step_close_to_fp32(FixtureModel::kTopoNet, toponet_fixture_batch({0}));
}

}  // namespace
}  // namespace olv2::test
