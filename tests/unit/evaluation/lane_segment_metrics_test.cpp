// The lane-segment task's metrics on hand-made frames: the Chamfer distance, the devkit's mask on
// the lane-segment distance, DET_a and the UniScore, LaneSegNet's own numbers, and results files
// of lane segments. The devkit and LaneSegNet themselves are the oracle in e2e/devkit_oracle_test.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "olv2/evaluation/chamfer.h"
#include "olv2/evaluation/evaluator.h"
#include "olv2/evaluation/lane_segment_distance.h"
#include "olv2/evaluation/results_reader.h"
#include "olv2/evaluation/results_writer.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

// A straight 10-point line along x, `length` metres from x0, at lateral offset y.
Polyline straight_line(float y, float x0 = 5.0f, float length = 18.0f) {
  Polyline points;
  for (int i = 0; i < 10; ++i) points.push_back({x0 + length * static_cast<float>(i) / 9.0f, y, 0});
  return points;
}

FrameGroundTruth lane_segment_frame(std::vector<float> lane_offsets,
                                    std::vector<int> area_categories) {
  FrameGroundTruth gt;
  gt.frame = {"val", "00001", "1"};
  gt.format = FrameFormat::kLaneSegment;
  for (const float y : lane_offsets) {
    gt.lanes.push_back(straight_line(y));
    gt.left_lanelines.push_back(straight_line(y + 1.75f));
    gt.right_lanelines.push_back(straight_line(y - 1.75f));
  }
  for (std::size_t k = 0; k < area_categories.size(); ++k) {
    gt.areas.push_back(straight_line(-10.0f - 5.0f * static_cast<float>(k)));
    gt.area_categories.push_back(area_categories[k]);
  }
  const std::size_t n = gt.num_lanes();
  gt.topology_lclc.assign(n * n, 0);
  if (n > 1) gt.topology_lclc[1] = 1;  // lane 0 -> lane 1
  return gt;
}

FramePrediction predict_exactly(const FrameGroundTruth& gt) {
  FramePrediction prediction;
  prediction.frame = gt.frame;
  prediction.format = FrameFormat::kLaneSegment;
  float confidence = 0.9f;
  for (std::size_t i = 0; i < gt.num_lanes(); ++i) {
    LanePrediction lane;
    lane.points = gt.lanes[i];
    lane.left_laneline = gt.left_lanelines[i];
    lane.right_laneline = gt.right_lanelines[i];
    lane.left_laneline_type = 1;
    lane.right_laneline_type = 2;
    lane.confidence = confidence -= 0.01f;
    prediction.lanes.push_back(lane);
  }
  for (std::size_t k = 0; k < gt.areas.size(); ++k) {
    prediction.areas.push_back({gt.areas[k], gt.area_categories[k], confidence -= 0.01f});
  }
  prediction.topology_lclc.assign(gt.topology_lclc.begin(), gt.topology_lclc.end());
  return prediction;
}

TEST(ChamferDistance, AveragesNearestPointsBothWaysAndDropsTheClosingPoint) {
  const Polyline gt = {{0, 0, 0}, {2, 0, 0}};
  const Polyline pred = {{0, 1, 0}};
  // pred -> gt: 1; gt -> pred: (1 + sqrt(5)) / 2.
  EXPECT_DOUBLE_EQ(chamfer_distance(gt, pred), (1.0 + (1.0 + std::sqrt(5.0)) / 2.0) / 2.0);
  const Polyline closed = {{0, 0, 0}, {2, 0, 0}, {0, 0, 0}};
  EXPECT_DOUBLE_EQ(chamfer_distance(closed, pred), chamfer_distance(gt, pred));
  // A prediction that closes on itself keeps its repeated point.
  EXPECT_NE(chamfer_distance(pred, closed), chamfer_distance(pred, gt));
}

TEST(LaneSegmentDistance, HalvesFrechetPlusBothChamfersAndMasksFarCenterlines) {
  const FrameGroundTruth gt = lane_segment_frame({0.0f}, {});
  FramePrediction prediction = predict_exactly(gt);
  // The boundaries exact, the centerline 0.8 m off: 0.5 * (0.8 + 0 + 0), relaxed by the nearest
  // point 5 m from the ego: 1 - 5e-3 * 5.
  for (auto& point : prediction.lanes[0].points) point[1] += 0.8f;
  const double relaxation = 1.0 - 5e-3 * 5.0;
  EXPECT_NEAR(lane_segment_distance_matrix(gt, prediction, 3.0).at(0, 0), 0.5 * 0.8 * relaxation,
              1e-6);
  // 4 m off, the full distance is 2 m * relaxation, within every threshold but the first; the
  // devkit's mask (centerline Chamfer below 3 m) leaves the pair unmeasured all the same.
  for (auto& point : prediction.lanes[0].points) point[1] += 3.2f;
  EXPECT_EQ(lane_segment_distance_matrix(gt, prediction, 3.0).at(0, 0), kUnmeasuredDistance);
}

TEST(LaneSegmentMetrics, PerfectPredictionsScoreOneAndNameTheirSet) {
  const std::vector<FrameGroundTruth> gt = {lane_segment_frame({0.0f, 6.0f}, {1, 2})};
  const EvaluationMetrics m = evaluate(gt, {predict_exactly(gt[0])});
  EXPECT_EQ(m.task, FrameFormat::kLaneSegment);
  EXPECT_FLOAT_EQ(m.det_l, 1.0);
  EXPECT_FLOAT_EQ(m.det_a, 1.0);
  EXPECT_FLOAT_EQ(m.det_t, 1.0);  // no traffic element on either side
  EXPECT_FLOAT_EQ(m.top_ll, 1.0);
  EXPECT_FLOAT_EQ(m.top_lt, 0.0);  // no traffic element: nothing collected counts 0, as the devkit
  EXPECT_FLOAT_EQ(m.score, 0.8);   // (1 + 1 + 1 + 1 + 0) / 5
  EXPECT_FALSE(m.lanesegnet.has_value());
  const auto json = metrics_to_json(m);
  EXPECT_EQ(json.at("metric_set"), "OpenLane-V2 UniScore");
  EXPECT_FLOAT_EQ(json.at("UniScore").get<double>(), 0.8);
  EXPECT_FALSE(json.contains("OLS"));
  EXPECT_THROW(headline_metric(m, "OLS", "evaluation.save_best"), Error);
}

TEST(LaneSegmentMetrics, AreasOfTheWrongCategoryMissBothCategories) {
  const std::vector<FrameGroundTruth> gt = {lane_segment_frame({0.0f}, {1, 2})};
  FramePrediction prediction = predict_exactly(gt[0]);
  std::swap(prediction.areas[0].category, prediction.areas[1].category);
  const EvaluationMetrics m = evaluate(gt, {prediction});
  EXPECT_FLOAT_EQ(m.det_a, 0.0);
  EXPECT_FLOAT_EQ(m.det_l, 1.0);
  EXPECT_NEAR(m.score,
              (m.det_l + m.det_a + m.det_t + std::sqrt(m.top_ll) + std::sqrt(m.top_lt)) / 5, 1e-7);
}

TEST(LaneSegmentMetrics, LaneSegNetsOwnNumbersUseItsCrossingsOnly) {
  std::vector<FrameGroundTruth> gt = {lane_segment_frame({0.0f}, {1, 2})};
  FramePrediction prediction = predict_exactly(gt[0]);
  // LaneSegNet's ground truth holds the crossing in its own shape, 3 m off the predicted one.
  Polyline crossing = gt[0].areas[0];
  for (auto& point : crossing) point[1] += 3.0f;
  gt[0].lanesegnet_crossings = std::vector<Polyline>{crossing};
  const EvaluationMetrics m = evaluate(gt, {prediction});
  ASSERT_TRUE(m.lanesegnet.has_value());
  EXPECT_FLOAT_EQ(m.lanesegnet->ap_ls, m.det_l);
  EXPECT_FLOAT_EQ(m.lanesegnet->ap_ped, 0.0);  // beyond 1.5 m
  EXPECT_FLOAT_EQ(m.lanesegnet->map, 0.5);
  EXPECT_FLOAT_EQ(m.det_a, 1.0);  // the devkit's areas are untouched
  EXPECT_EQ(headline_metrics(m).front().first, "mAP");
}

TEST(LaneSegmentMetrics, RefusesToMixTasksOrCenterlineVersions) {
  const std::vector<FrameGroundTruth> gt = {lane_segment_frame({0.0f}, {})};
  FramePrediction centerlines = predict_exactly(gt[0]);
  centerlines.format = FrameFormat::kLaneCenterline;
  EXPECT_THROW(evaluate(gt, {centerlines}), Error);
  EXPECT_THROW(evaluate(gt, {predict_exactly(gt[0])}, MetricVersion::kV1_0), Error);
  FramePrediction without_boundary = predict_exactly(gt[0]);
  without_boundary.lanes[0].right_laneline.clear();
  EXPECT_THROW(evaluate(gt, {without_boundary}), Error);
}

TEST(LaneSegmentResults, RoundTripThroughTheResultsFile) {
  const FrameGroundTruth gt = lane_segment_frame({0.0f, 6.0f}, {1, 2});
  FramePrediction prediction = predict_exactly(gt);
  prediction.traffic_elements.push_back({{10, 20, 30, 40}, 3, 0.5f});
  prediction.topology_lcte = {0.25f, 0.75f};
  std::ostringstream text;
  write_results(text, {prediction});
  EXPECT_NE(text.str().find("\"topology_lsls\""), std::string::npos);
  EXPECT_EQ(text.str().find("lane_centerline"), std::string::npos);
  const std::vector<FramePrediction> read = parse_results(text.str(), "test");
  ASSERT_EQ(read.size(), 1u);
  const FramePrediction& back = read[0];
  EXPECT_EQ(back.format, FrameFormat::kLaneSegment);
  ASSERT_EQ(back.lanes.size(), 2u);
  EXPECT_EQ(back.lanes[1].left_laneline, prediction.lanes[1].left_laneline);
  EXPECT_EQ(back.lanes[1].right_laneline_type, 2);
  ASSERT_EQ(back.areas.size(), 2u);
  EXPECT_EQ(back.areas[1].category, 2);
  EXPECT_EQ(back.areas[1].points, prediction.areas[1].points);
  EXPECT_EQ(back.topology_lcte, prediction.topology_lcte);
}

TEST(LaneSegmentResults, NamesTheBrokenMember) {
  const std::string text =
      R"({"results": {"val/1/2": {"predictions": {"lane_segment": [{"id": 1, "centerline": )"
      R"([[0, 0, 0]], "left_laneline": [[0, 1, 0]], "right_laneline": [[0, -1, 0]], )"
      R"("left_laneline_type": 3, "right_laneline_type": 0, "confidence": 0.5}], "area": [], )"
      R"("traffic_element": [], "topology_lsls": [[0.5]], "topology_lste": [[]]}}}})";
  try {
    parse_results(text, "test");
    FAIL() << "a line type of 3 was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("lane_segment[0].left_laneline_type"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace olv2
