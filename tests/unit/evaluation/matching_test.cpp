// Greedy confidence-ordered matching (spec/evaluation.md §4) on hand-made distance matrices.
#include "olv2/evaluation/matching.h"

#include <gtest/gtest.h>

#include <cmath>

namespace olv2 {
namespace {

DistanceMatrix matrix(std::size_t rows, std::size_t cols, std::vector<double> values) {
  DistanceMatrix d(rows, cols, 0.0);
  d.values = std::move(values);
  return d;
}

constexpr int kNone = FrameMatch::kUnmatched;

TEST(GreedyMatch, TakenNearestGroundTruthMakesAFalsePositive) {
  // Prediction 1's nearest ground truth (0) is taken by prediction 0; ground truth 1 is within
  // the threshold too, but there is no fallback.
  const DistanceMatrix d = matrix(2, 3,
                                  {0.5, 0.4, 2.0,  //
                                   0.8, 0.6, 0.9});
  const FrameMatch match = greedy_match(d, {0.9f, 0.8f, 0.7f}, 1.0);
  EXPECT_EQ(match.true_positive, (std::vector<std::uint8_t>{1, 0, 1}));
  EXPECT_EQ(match.matched_gt, (std::vector<int>{0, kNone, 1}));
}

TEST(GreedyMatch, HigherConfidenceWinsTheSharedGroundTruth) {
  const DistanceMatrix d = matrix(2, 3,
                                  {0.5, 0.4, 2.0,  //
                                   0.8, 0.6, 0.9});
  const FrameMatch match = greedy_match(d, {0.8f, 0.9f, 0.7f}, 1.0);
  EXPECT_EQ(match.matched_gt, (std::vector<int>{kNone, 0, 1}));
}

TEST(GreedyMatch, ThresholdIsStrict) {
  const FrameMatch match = greedy_match(matrix(1, 1, {1.0}), {0.5f}, 1.0);
  EXPECT_EQ(match.true_positive[0], 0);
  EXPECT_EQ(match.matched_gt[0], kNone);
}

TEST(GreedyMatch, TiesInDistanceGoToTheFirstGroundTruth) {
  const FrameMatch match = greedy_match(matrix(2, 1, {0.3, 0.3}), {0.5f}, 1.0);
  EXPECT_EQ(match.matched_gt[0], 0);
}

TEST(GreedyMatch, NoGroundTruthMeansEveryPredictionIsFalse) {
  const FrameMatch match = greedy_match(DistanceMatrix(0, 2, 0.0), {0.9f, 0.1f}, 1.0);
  EXPECT_EQ(match.true_positive, (std::vector<std::uint8_t>{0, 0}));
  EXPECT_EQ(match.matched_gt, (std::vector<int>{kNone, kNone}));
}

TEST(GreedyMatch, NoPredictionsGiveEmptyResults) {
  const FrameMatch match = greedy_match(DistanceMatrix(3, 0, 0.0), {}, 1.0);
  EXPECT_TRUE(match.true_positive.empty());
  EXPECT_TRUE(match.matched_gt.empty());
}

TEST(GreedyMatch, NaNDistanceNeverMatches) {
  const FrameMatch match = greedy_match(matrix(2, 1, {0.1, std::nan("")}), {0.5f}, 1.0);
  EXPECT_EQ(match.true_positive[0], 0);
}

TEST(GreedyMatch, ConfidenceTiesKeepListOrder) {
  EXPECT_EQ(order_by_descending_confidence({0.5f, 0.9f, 0.5f, 0.9f}),
            (std::vector<std::size_t>{1, 3, 0, 2}));
}

TEST(GreedyMatch, MismatchedConfidenceCountIsAnError) {
  EXPECT_THROW(greedy_match(DistanceMatrix(1, 2, 0.0), {0.5f}, 1.0), std::exception);
}

}  // namespace
}  // namespace olv2
