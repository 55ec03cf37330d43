// The spread the GPU tests' fp32 tolerances are made from (parity/fp32_step_tolerances.h): each
// fixture model's step on one thread against the same step on two, under the one-thread step's
// matchings, so that only the order of the sums differs. Prints the largest differences; fails
// when a spread passes a quarter of its model's tolerance (about ten times the spread when it
// was set), which then needs measuring again.
#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "parity/fp32_step_tolerances.h"
#include "parity/seeded_fixture_models.h"
#include "support/replayed_matchings.h"
#include "support/step_comparison.h"
#include "support/training_step.h"

namespace olv2::test {
namespace {

// A step of `model` on `threads` threads.
StepResult step_on_threads(FixtureModel model, const Batch& batch, int threads, Matchings mode,
                           const std::shared_ptr<MatchingLog>& log) {
  const int before = at::get_num_threads();
  at::set_num_threads(threads);
  const StepResult step =
      training_step(*seeded_fixture_model(model, mode, log), batch, c10::Device(c10::kCPU));
  at::set_num_threads(before);
  return step;
}

double largest_relative(const Comparison& comparison) {
  double largest = 0.0;
  for (const Difference& d : comparison.entries) largest = std::max(largest, d.relative);
  return largest;
}

void expect_spread_within_a_quarter_of_the_tolerance(FixtureModel model, const Batch& batch) {
  const std::string name = name_of(model);
  const auto log = std::make_shared<MatchingLog>();
  const StepResult one = step_on_threads(model, batch, 1, Matchings::kRecord, log);
  const StepResult two = step_on_threads(model, batch, 2, Matchings::kReplay, log);
  const Comparison losses = compare_losses(two, one, name + ": loss terms, 2 threads against 1");
  const Comparison grads = compare_gradients(two, one, name + ": gradients, 2 threads against 1");
  std::printf("%s%s%s: fp32 spread %.3e (loss terms %.3e, gradients %.3e), tolerance %.1e\n",
              losses.worst().c_str(), grads.worst().c_str(), name.c_str(),
              std::max(largest_relative(losses), largest_relative(grads)), largest_relative(losses),
              largest_relative(grads), fp32_step_tolerance(model));
  std::fflush(stdout);
  const double bound = fp32_step_tolerance(model) / 4;
  for (const std::string& failure : losses.failures(bound))
    ADD_FAILURE() << name << ": " << failure;
  for (const std::string& failure : grads.failures(bound)) ADD_FAILURE() << name << ": " << failure;
}

TEST(Fp32Spread, OfTheBaselineStaysWithinAQuarterOfItsGpuTolerance) {
  OLV2_REQUIRE_FIXTURE(input_path, "baseline_input.pt");
  expect_spread_within_a_quarter_of_the_tolerance(FixtureModel::kBaseline,
                                                  fixture_input(input_path));
}

TEST(Fp32Spread, OfTheBaselineLargeStaysWithinAQuarterOfItsGpuTolerance) {
  OLV2_REQUIRE_FIXTURE(input_path, "baseline_large_input.pt");
  expect_spread_within_a_quarter_of_the_tolerance(FixtureModel::kBaselineLarge,
                                                  fixture_input(input_path));
}

TEST(Fp32Spread, OfTopoNetStaysWithinAQuarterOfItsGpuTolerance) {
  expect_spread_within_a_quarter_of_the_tolerance(FixtureModel::kTopoNet,
                                                  toponet_fixture_batch({0}));
}

}  // namespace
}  // namespace olv2::test
