// The devkit's "F-Score for 3D Lane" on hand-computed cases: lanes sampled at x = -50..49, a
// match needs 75 % of the visible samples within 1.5 m, recall and precision summed over frames.
#include "olv2/evaluation/lane_f_score.h"

#include <gtest/gtest.h>

namespace olv2 {
namespace {

// 11 points from x0 to x1 at lateral offset y, z 0.
Polyline straight_lane(float x0, float x1, float y) {
  Polyline points;
  for (int i = 0; i <= 10; ++i) {
    points.push_back({x0 + (x1 - x0) * static_cast<float>(i) / 10.0f, y, 0.0f});
  }
  return points;
}

struct Frame2 {
  std::vector<Polyline> ground_truth;
  std::vector<Polyline> predicted;
};

double f_score_of(const std::vector<Frame2>& frames) {
  std::vector<FrameGroundTruth> ground_truth;
  std::vector<FramePrediction> predictions;
  for (std::size_t f = 0; f < frames.size(); ++f) {
    FrameGroundTruth gt;
    gt.frame = {"val", "00001", std::to_string(f)};
    gt.lanes = frames[f].ground_truth;
    ground_truth.push_back(gt);
    FramePrediction prediction;
    prediction.frame = gt.frame;
    for (const Polyline& lane : frames[f].predicted) prediction.lanes.push_back({lane, 0.5f});
    predictions.push_back(prediction);
  }
  return lane_f_score(ground_truth, predictions);
}

TEST(LaneFScore, CloseLanesMatchFarOnesDoNot) {
  // 21 samples (x = -10..10) 0.5 m apart: recalled and precise.
  EXPECT_DOUBLE_EQ(f_score_of({{{straight_lane(-10, 10, 0)}, {straight_lane(-10, 10, 0.5f)}}}),
                   1.0);
  // 2 m apart: matched (cost 42 < 150) but no sample within 1.5 m.
  EXPECT_DOUBLE_EQ(f_score_of({{{straight_lane(-10, 10, 0)}, {straight_lane(-10, 10, 2.0f)}}}),
                   0.0);
  EXPECT_DOUBLE_EQ(f_score_of({{{straight_lane(-10, 10, 0)}, {}}}), 0.0);
}

// A prediction twice as long covers all of the ground truth (recall) but only 21 of its 41
// samples (no precision); with a perfect frame beside it R = 2/2, P = 1/2, F = 2/3.
TEST(LaneFScore, RecallAndPrecisionAreSummedOverFrames) {
  const Frame2 perfect = {{straight_lane(-10, 10, 0)}, {straight_lane(-10, 10, 0.5f)}};
  const Frame2 longer = {{straight_lane(-10, 10, 0)}, {straight_lane(-10, 30, 0)}};
  EXPECT_DOUBLE_EQ(f_score_of({longer}), 0.0);
  EXPECT_NEAR(f_score_of({perfect, longer}), 2.0 / 3.0, 1e-15);
  // Two lanes, one predicted: R = 1/2, P = 1/1.
  EXPECT_NEAR(f_score_of({{{straight_lane(-10, 10, 0), straight_lane(-10, 10, 3.5f)},
                           {straight_lane(-10, 10, 3.4f)}}}),
              2.0 / 3.0, 1e-15);
}

// The range test reads the first and last point as listed: a lane listed from x = 60 back to 10
// is left out, one from 10 back to -10 takes part (its samples are sorted by x).
TEST(LaneFScore, TheRangeTestReadsTheFirstAndLastPointAsListed) {
  EXPECT_DOUBLE_EQ(f_score_of({{{straight_lane(60, 10, 0)}, {straight_lane(60, 10, 0)}}}), 0.0);
  EXPECT_DOUBLE_EQ(f_score_of({{{straight_lane(10, -10, 0)}, {straight_lane(10, -10, 0.2f)}}}),
                   1.0);
}

// The matching minimises the total truncated cost, not each distance: with a prediction 1e8 m
// away, pairing it with the lane 3.5 m closer saves 73 and pairing the close prediction with the
// wrong lane costs 73 more (75 instead of 2), one less in all; nothing is then recalled.
TEST(LaneFScore, TheMatchingMinimisesTheTotalIntegerCost) {
  EXPECT_DOUBLE_EQ(f_score_of({{{straight_lane(-10, 10, 0), straight_lane(-10, 10, 3.5f)},
                                {straight_lane(-10, 10, 1e8f), straight_lane(-10, 10, 3.6f)}}}),
                   0.0);
}

}  // namespace
}  // namespace olv2
