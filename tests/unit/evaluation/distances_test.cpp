// Hand-computed Fréchet, relaxation and IoU distances (spec/evaluation.md §3).
#include <gtest/gtest.h>

#include <cmath>

#include "olv2/evaluation/frechet.h"
#include "olv2/evaluation/iou_distance.h"

namespace olv2 {
namespace {

Polyline straight_lane(float x0, float x1, float y, int points) {
  Polyline lane;
  for (int k = 0; k < points; ++k) {
    lane.push_back(
        {x0 + (x1 - x0) * static_cast<float>(k) / static_cast<float>(points - 1), y, 0.0f});
  }
  return lane;
}

TEST(Frechet, IdenticalPolylinesAreAtZero) {
  const Polyline lane = straight_lane(0, 10, 2, 11);
  EXPECT_EQ(discrete_frechet(lane, lane), 0.0);
}

TEST(Frechet, ParallelShiftIsTheOffset) {
  EXPECT_DOUBLE_EQ(discrete_frechet(straight_lane(0, 10, 0, 11), straight_lane(0, 10, 1.5f, 11)),
                   1.5);
}

TEST(Frechet, MiddlePointMustCoupleWithAnEndOfTheShorterLine) {
  const Polyline three = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
  const Polyline two = {{0, 1, 0}, {2, 1, 0}};
  EXPECT_DOUBLE_EQ(discrete_frechet(three, two), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(discrete_frechet(two, three), std::sqrt(2.0));
}

TEST(Frechet, IncludesHeight) {
  const Polyline flat = {{0, 0, 0}, {5, 0, 0}};
  const Polyline raised = {{0, 0, 2}, {5, 0, 2}};
  EXPECT_DOUBLE_EQ(discrete_frechet(flat, raised), 2.0);
}

TEST(Frechet, ReversedLaneIsFarFromItself) {
  const Polyline lane = straight_lane(0, 10, 0, 11);
  const Polyline reversed(lane.rbegin(), lane.rend());
  EXPECT_DOUBLE_EQ(discrete_frechet(lane, reversed), 10.0);
}

TEST(Frechet, RelaxationShrinksWithTheNearestPointDistance) {
  EXPECT_DOUBLE_EQ(lane_relaxation_factor(straight_lane(-5, 5, 0, 11)), 1.0);
  EXPECT_DOUBLE_EQ(lane_relaxation_factor(straight_lane(20, 50, 0, 11)), 1.0 - 0.005 * 20.0);
  EXPECT_DOUBLE_EQ(lane_relaxation_factor(straight_lane(150, 200, 0, 11)), 0.5);
  // 3D norm: a lane 3 m up and 4 m aside is 5 m away.
  EXPECT_DOUBLE_EQ(lane_relaxation_factor({{0, 4, 3}, {0, 8, 3}}), 1.0 - 0.005 * 5.0);
}

TEST(Frechet, MatrixRelaxesEachGroundTruthRow) {
  const std::vector<Polyline> gt = {straight_lane(0, 10, 0, 11), straight_lane(40, 60, 0, 11)};
  const std::vector<Polyline> pred = {straight_lane(0, 10, 1, 11), straight_lane(40, 60, 2, 11)};
  const DistanceMatrix d = relaxed_frechet_matrix(gt, pred, 3.0);
  ASSERT_EQ(d.rows, 2u);
  ASSERT_EQ(d.cols, 2u);
  EXPECT_DOUBLE_EQ(d.at(0, 0), 1.0);
  EXPECT_DOUBLE_EQ(d.at(1, 1), 2.0 * (1.0 - 0.005 * 40.0));
  // Far pairs are only guaranteed to stay at or above the largest threshold.
  EXPECT_GE(d.at(0, 1), 3.0);
  EXPECT_GE(d.at(1, 0), 3.0);
}

TEST(IouDistance, IdenticalBoxesAreAtZero) {
  EXPECT_EQ(iou_distance({10, 20, 30, 60}, {10, 20, 30, 60}), 0.0);
}

TEST(IouDistance, DisjointBoxesAreAtOne) {
  EXPECT_EQ(iou_distance({0, 0, 10, 10}, {20, 20, 30, 30}), 1.0);
  EXPECT_EQ(iou_distance({0, 0, 10, 10}, {10, 0, 20, 10}), 1.0);  // touching edges
}

TEST(IouDistance, HalfShiftedSquaresShareAThird) {
  // Intersection 2, union 4 + 4 - 2 = 6, no +1 pixel convention.
  EXPECT_NEAR(iou_distance({0, 0, 2, 2}, {1, 0, 3, 2}), 1.0 - 1.0 / 3.0, 1e-7);
}

TEST(IouDistance, TwoEmptyBoxesGiveNaN) {
  EXPECT_TRUE(std::isnan(iou_distance({5, 5, 5, 5}, {5, 5, 5, 5})));
}

TEST(IouDistance, MatrixIsGroundTruthByPrediction) {
  const DistanceMatrix d = iou_distance_matrix({{0, 0, 2, 2}}, {{0, 0, 2, 2}, {1, 0, 3, 2}});
  ASSERT_EQ(d.rows, 1u);
  ASSERT_EQ(d.cols, 2u);
  EXPECT_EQ(d.at(0, 0), 0.0);
  EXPECT_NEAR(d.at(0, 1), 2.0 / 3.0, 1e-7);
}

}  // namespace
}  // namespace olv2
