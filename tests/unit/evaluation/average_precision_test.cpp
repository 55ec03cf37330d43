// 11-point AP with the float32 recall rule (spec/evaluation.md §5.1), on hand-computed rankings.
#include "olv2/evaluation/average_precision.h"

#include <gtest/gtest.h>

namespace olv2 {
namespace {

DetectionTally tally(std::vector<float> confidences, std::vector<std::uint8_t> true_positive,
                     std::size_t num_ground_truth) {
  DetectionTally t;
  t.confidences = std::move(confidences);
  t.true_positive = std::move(true_positive);
  t.num_ground_truth = num_ground_truth;
  return t;
}

TEST(AveragePrecision, RecallOfExactlySevenTenthsReachesTheSevenTenthsPoint) {
  // 10 ground-truth lanes, 7 found perfectly and nothing else: in float32 the recall 7/10 equals
  // float32(0.7), so 8 of the 11 points have precision 1. In double it would be 7/11.
  std::vector<float> confidences;
  for (int k = 0; k < 7; ++k) confidences.push_back(0.9f - 0.1f * static_cast<float>(k));
  const float ap = average_precision(tally(confidences, std::vector<std::uint8_t>(7, 1), 10));
  EXPECT_EQ(ap, 8.0f / 11.0f);
  EXPECT_NE(ap, 7.0f / 11.0f);
}

TEST(AveragePrecision, RecallPointComparisonIsFloat32) {
  // Recall 3/10 in float32 reaches t = 0.3; recall 0.29 does not.
  EXPECT_EQ(eleven_point_ap({0.3f}, {1.0f}), 4.0f / 11.0f);
  EXPECT_EQ(eleven_point_ap({0.29f}, {1.0f}), 3.0f / 11.0f);
}

TEST(AveragePrecision, InterpolatesTheBestLaterPrecision) {
  // Ranked TP, FP, TP with 2 ground truth: recall .5, .5, 1 and precision 1, 1/2, 2/3.
  // t = 0..0.5 take 1; t = 0.6..1 take 2/3.
  const float ap = average_precision(tally({0.9f, 0.8f, 0.7f}, {1, 0, 1}, 2));
  EXPECT_NEAR(ap, (6.0 + 5.0 * 2.0 / 3.0) / 11.0, 1e-6);
}

TEST(AveragePrecision, RanksByConfidenceNotByInputOrder) {
  const float ap = average_precision(tally({0.7f, 0.8f, 0.9f}, {1, 0, 1}, 2));
  EXPECT_NEAR(ap, (6.0 + 5.0 * 2.0 / 3.0) / 11.0, 1e-6);
  // The false positive first: precision 0, 1/2, 2/3 at recall 0, .5, 1.
  EXPECT_NEAR(average_precision(tally({0.8f, 0.9f, 0.7f}, {1, 0, 1}, 2)), 2.0 / 3.0, 1e-6);
}

TEST(AveragePrecision, NothingPredictedAndNothingToFindIsPerfect) {
  EXPECT_EQ(average_precision(tally({}, {}, 0)), 1.0f);
}

TEST(AveragePrecision, MissingEverythingScoresZero) {
  EXPECT_EQ(average_precision(tally({}, {}, 4)), 0.0f);
}

TEST(AveragePrecision, PredictionsWithoutGroundTruthScoreZero) {
  EXPECT_EQ(average_precision(tally({0.9f, 0.3f}, {0, 0}, 0)), 0.0f);
}

TEST(AveragePrecision, TallyConcatenatesFrames) {
  DetectionTally t;
  FrameMatch first;
  first.true_positive = {1};
  first.matched_gt = {0};
  FrameMatch second;
  second.true_positive = {0, 1};
  second.matched_gt = {FrameMatch::kUnmatched, 1};
  t.add_frame({0.9f}, first, 1);
  t.add_frame({0.8f, 0.7f}, second, 2);
  EXPECT_EQ(t.confidences, (std::vector<float>{0.9f, 0.8f, 0.7f}));
  EXPECT_EQ(t.true_positive, (std::vector<std::uint8_t>{1, 0, 1}));
  EXPECT_EQ(t.num_ground_truth, 3u);
}

}  // namespace
}  // namespace olv2
