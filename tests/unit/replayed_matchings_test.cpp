// A step that replays another step's matchings is that step, and the heads really use the
// replayed matchings: what the GPU tests compare the GPU with the CPU under
// (support/replayed_matchings.h). Each fixture model at fixture size, one frame, on the CPU.
#include "support/replayed_matchings.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "olv2/assign/assign_result.h"
#include "parity/seeded_fixture_models.h"
#include "support/step_comparison.h"
#include "support/training_step.h"

namespace olv2::test {
namespace {

// The first recorded matching with two matches or more, each matched query given the next
// one's ground-truth object; false when there is none.
bool rotate_matches(std::vector<AssignResult>& matchings) {
  for (AssignResult& matching : matchings) {
    if (matching.pos_inds.size(0) < 2) continue;
    matching = make_assign_result(matching.assigned_gt_inds.size(0), matching.num_gts,
                                  matching.pos_inds, matching.pos_assigned_gt_inds.roll(1));
    return true;
  }
  return false;
}

void expect_equal_steps(const StepResult& actual, const StepResult& expected,
                        const std::string& title) {
  for (const std::string& failure : compare_losses(actual, expected, title).failures(0.0)) {
    ADD_FAILURE() << title << ": " << failure;
  }
  for (const std::string& failure : compare_gradients(actual, expected, title).failures(0.0)) {
    ADD_FAILURE() << title << ": " << failure;
  }
}

void expect_replay_is_the_step(FixtureModel model, const Batch& batch) {
  const std::string name = name_of(model);
  const c10::Device cpu(c10::kCPU);
  const auto log = std::make_shared<MatchingLog>();
  const StepResult recorded =
      training_step(*seeded_fixture_model(model, Matchings::kRecord, log), batch, cpu);
  ASSERT_GT(log->size(), 0u) << name << ": no matching recorded";

  const StepResult replayed =
      training_step(*seeded_fixture_model(model, Matchings::kReplay, log), batch, cpu);
  EXPECT_EQ(log->replayed(), log->size()) << name << ": every recorded matching replayed once";
  expect_equal_steps(replayed, recorded, name + ", replayed against recorded");

  ASSERT_TRUE(rotate_matches(log->matchings())) << name << ": no matching with two matches";
  log->rewind();
  const StepResult altered =
      training_step(*seeded_fixture_model(model, Matchings::kReplay, log), batch, cpu);
  EXPECT_FALSE(compare_losses(altered, recorded, name).failures(1e-6).empty())
      << name << ": a replayed matching with its matches rotated left every loss term as it was";
}

TEST(ReplayedMatchings, ReproduceABaselineStepAndAreWhatItUses) {
  OLV2_REQUIRE_FIXTURE(input_path, "baseline_input.pt");
  expect_replay_is_the_step(FixtureModel::kBaseline, fixture_input(input_path));
}

TEST(ReplayedMatchings, ReproduceABaselineLargeStepAndAreWhatItUses) {
  OLV2_REQUIRE_FIXTURE(input_path, "baseline_large_input.pt");
  expect_replay_is_the_step(FixtureModel::kBaselineLarge, fixture_input(input_path));
}

TEST(ReplayedMatchings, ReproduceATopoNetStepAndAreWhatItUses) {
  expect_replay_is_the_step(FixtureModel::kTopoNet, toponet_fixture_batch({0}));
}

TEST(ReplayedMatchings, AMatchingForOtherSizesIsAnErrorNotAnAnswer) {
  MatchingLog log;
  log.record(make_assign_result(20, 3, torch::tensor({4}), torch::tensor({1})));
  EXPECT_THROW(log.replay(20, 4), std::runtime_error);
  EXPECT_THROW(log.replay(10, 3), std::runtime_error);
  const AssignResult replayed = log.replay(20, 3);
  EXPECT_TRUE(torch::equal(replayed.pos_inds, torch::tensor({4})));
  EXPECT_THROW(log.replay(20, 3), std::runtime_error);  // none left
}

}  // namespace
}  // namespace olv2::test
