// Per-vertex AP and the v1.1 projection onto the ground-truth graph (spec/evaluation.md §6).
#include "olv2/evaluation/topology_metrics.h"

#include <gtest/gtest.h>

#include <limits>

namespace olv2 {
namespace {

constexpr int kUnmatchedGt = FrameMatch::kUnmatched;
const double kFalseEdgeScore = 0.5 + std::numeric_limits<float>::epsilon();

TEST(VertexAveragePrecision, ScoreOfExactlyHalfIsNotAnEdge) {
  // Candidate 2 scores exactly 0.5: only candidate 0 is predicted, so AP = 1 / |N| = 1/2.
  EXPECT_DOUBLE_EQ(vertex_average_precision({1, 0, 1}, {0.9, 0.3, 0.5}), 0.5);
  // Just above 0.5 it counts.
  EXPECT_DOUBLE_EQ(vertex_average_precision({1, 0, 1}, {0.9, 0.3, 0.5000001}), 1.0);
}

TEST(VertexAveragePrecision, AveragesPrecisionAtRelevantRanks) {
  // Ranked: 0 (not a neighbour), 1 (precision 1/2), 2 (precision 2/3).
  EXPECT_NEAR(vertex_average_precision({0, 1, 1}, {0.9, 0.8, 0.7}), (0.5 + 2.0 / 3.0) / 2.0, 1e-7);
  // The same candidates in another column order give the same AP.
  EXPECT_NEAR(vertex_average_precision({1, 0, 1}, {0.7, 0.9, 0.8}), (0.5 + 2.0 / 3.0) / 2.0, 1e-7);
}

TEST(VertexAveragePrecision, NeverPredictedNeighboursCountInTheDenominator) {
  EXPECT_DOUBLE_EQ(vertex_average_precision({1, 1, 0}, {0.9, 0.2, 0.1}), 0.5);
}

TEST(VertexAveragePrecision, EmptySides) {
  EXPECT_EQ(vertex_average_precision({0, 0}, {0.5, 0.1}), 1.0);
  EXPECT_EQ(vertex_average_precision({1, 0}, {0.2, 0.3}), 0.0);
  EXPECT_EQ(vertex_average_precision({0, 0}, {0.9, 0.3}), 0.0);
  EXPECT_EQ(vertex_average_precision({}, {}), 1.0);
}

TEST(ProjectTopology, UnmatchedEntriesBecomeMissedOrFalseEdges) {
  // Ground truth 3 x 2; rows 0 and 2 matched to predictions 1 and 0, column 0 matched to
  // prediction 1, column 1 unmatched.
  const std::vector<std::int8_t> gt = {1, 0,  //
                                       1, 1,  //
                                       0, 0};
  const std::vector<float> predicted = {0.1f, 0.2f,  //
                                        0.3f, 0.4f};
  const std::vector<double> s =
      project_topology(gt, 3, 2, predicted, 2, {1, kUnmatchedGt, 0}, {1, kUnmatchedGt});
  const std::vector<double> expected = {0.4f, kFalseEdgeScore,  //
                                        0.0,  0.0,              //
                                        0.2f, kFalseEdgeScore};
  EXPECT_EQ(s, expected);
}

TEST(ProjectTopology, InvertsTheMatching) {
  FrameMatch match;
  match.matched_gt = {kUnmatchedGt, 2, 0};
  EXPECT_EQ(prediction_of_ground_truth(match, 4),
            (std::vector<int>{2, kUnmatchedGt, 1, kUnmatchedGt}));
}

// Straight 11-point lanes 3 m apart, as ground truth and predictions.
Polyline lane(int k) {
  Polyline points;
  for (int i = 0; i <= 10; ++i) points.push_back({static_cast<float>(i), 3.0f * k, 0.0f});
  return points;
}

// Ground truth: lanes 0 -> 1, and lane 2 that nothing predicts; lanes 0 and 1 predicted with
// confidences 0.9 and 0.8, matched at every threshold, their edge scored 0.9.
struct UnmatchedLaneCase {
  FrameGroundTruth gt;
  FramePrediction prediction;
  LaneDetectionResult lanes;
  FrameMatch match;

  UnmatchedLaneCase() {
    gt.frame = {"val", "00001", "1"};
    gt.lanes = {lane(0), lane(1), lane(2)};
    gt.topology_lclc = {0, 1, 0,  //
                        0, 0, 0,  //
                        0, 0, 0};
    prediction.frame = gt.frame;
    prediction.lanes = {{lane(0), 0.9f}, {lane(1), 0.8f}};
    prediction.topology_lclc = {0.1f, 0.9f,  //
                                0.1f, 0.1f};
    match.true_positive = {1, 1};
    match.matched_gt = {0, 1};
    for (auto& per_threshold : lanes.matches) per_threshold = {match};
  }
};

TEST(TopologyLclc, UnmatchedGroundTruthLaneScoresZeroAndAddsFalseEdges) {
  UnmatchedLaneCase c;
  FrameGroundTruth& gt = c.gt;
  const FramePrediction& prediction = c.prediction;
  const LaneDetectionResult& lanes = c.lanes;

  // Rows: 1 (edge found, the false edge to lane 2 ranks after it), 0 (false edge to lane 2),
  // 0 (lane 2). Columns: 0 (false edge from lane 2), 1, 0 (lane 2). Mean 2/6.
  const TopologyScore top = evaluate_topology_lclc({gt}, {prediction}, lanes, MetricVersion::kV1_1);
  EXPECT_NEAR(top.value, 1.0 / 3.0, 1e-12);
  EXPECT_FALSE(top.is_float32);

  // Without the unmatched lane every vertex is perfect.
  gt.lanes.pop_back();
  gt.topology_lclc = {0, 1, 0, 0};
  EXPECT_DOUBLE_EQ(evaluate_topology_lclc({gt}, {prediction}, lanes, MetricVersion::kV1_1).value,
                   1.0);
}

TEST(TopologyLclc, NothingCollectedScoresZero) {
  FrameGroundTruth gt;
  gt.frame = {"val", "00001", "1"};
  FramePrediction prediction;
  prediction.frame = gt.frame;
  LaneDetectionResult lanes;
  for (auto& per_threshold : lanes.matches) per_threshold = {FrameMatch{}};
  const TopologyScore top = evaluate_topology_lclc({gt}, {prediction}, lanes, MetricVersion::kV1_1);
  EXPECT_EQ(top.value, 0.0);
}

// v1.0 (tag v1.0.0): the frame counts once per confidence level, unmatched entries score 1 - GT.
// Levels of the two predictions (recalls 1/3, 2/3 of 3 lanes): seven at 0.9 (lane 0 alone), three
// at 0.8 (both). At 0.9 every vertex scores 0 (the unmatched lanes' entries are 1 - GT: false
// edges everywhere, the one true edge a miss); at 0.8 row 0 and column 1 rank their edge second
// behind lane 2's false edge (AP 1/2 each), the other four vertices 0. Mean: 3 levels x 3
// thresholds x (1/2 + 1/2) over 10 x 3 x 6 values = 9 / 180.
TEST(TopologyLclc, VersionOneZeroScoresUnmatchedEntriesAsTheGroundTruthOverTenLevels) {
  const UnmatchedLaneCase c;
  EXPECT_EQ(confidence_levels(c.match, {0.9f, 0.8f}, 3),
            (std::vector<float>{0.9f, 0.9f, 0.9f, 0.9f, 0.9f, 0.9f, 0.9f, 0.8f, 0.8f, 0.8f}));
  const TopologyScore top =
      evaluate_topology_lclc({c.gt}, {c.prediction}, c.lanes, MetricVersion::kV1_0);
  EXPECT_NEAR(top.value, 9.0 / 180.0, 1e-12);
}

// numpy.percentile(method='closest_observation') before numpy 2.0.1 keeps an even integer index
// (here 5 recalls: 0 at the 30th and 2 at the 70th percentile, where numpy 2.0.1 moves up).
TEST(TopologyLclc, ConfidenceLevelsFollowTheDevkitsPercentile) {
  FrameMatch match;
  match.true_positive = {1, 1, 1, 1, 1};
  match.matched_gt = {0, 1, 2, 3, 4};
  EXPECT_EQ(confidence_levels(match, {0.9f, 0.8f, 0.7f, 0.6f, 0.5f}, 5),
            (std::vector<float>{0.9f, 0.9f, 0.9f, 0.8f, 0.7f, 0.7f, 0.7f, 0.6f, 0.5f, 0.5f}));
  // A false positive repeats a recall: the level is the last prediction with it (0.8, not 0.9).
  match.true_positive = {1, 0, 1};
  match.matched_gt = {0, FrameMatch::kUnmatched, 1};
  EXPECT_EQ(confidence_levels(match, {0.9f, 0.8f, 0.7f}, 2),
            (std::vector<float>{0.8f, 0.8f, 0.8f, 0.8f, 0.8f, 0.8f, 0.8f, 0.8f, 0.7f, 0.7f}));
  EXPECT_TRUE(confidence_levels(FrameMatch{}, {}, 3).empty());
}

}  // namespace
}  // namespace olv2
