// End-to-end metric behaviour on small hand-made datasets: corner cases of
// spec/evaluation.md §8 and order invariance.
#include "olv2/evaluation/evaluator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "olv2/util/error.h"

namespace olv2 {
namespace {

// Straight 11-point lane along x at lateral offset y.
Polyline lane_at(float y, float x0 = 0.0f) {
  Polyline points;
  for (int i = 0; i <= 10; ++i) points.push_back({x0 + 2.0f * static_cast<float>(i), y, 0.0f});
  return points;
}

FrameGroundTruth frame(const std::string& timestamp, std::vector<Polyline> lanes,
                       std::vector<Box> boxes, std::vector<int> attributes) {
  FrameGroundTruth gt;
  gt.frame = {"val", "00001", timestamp};
  gt.lanes = std::move(lanes);
  gt.traffic_element_boxes = std::move(boxes);
  gt.traffic_element_attributes = std::move(attributes);
  gt.topology_lclc.assign(gt.num_lanes() * gt.num_lanes(), 0);
  gt.topology_lcte.assign(gt.num_lanes() * gt.num_traffic_elements(), 0);
  return gt;
}

// Predicts the ground truth exactly, with distinct confidences starting at `confidence`.
FramePrediction copy_of(const FrameGroundTruth& gt, float confidence = 0.9f) {
  FramePrediction prediction;
  prediction.frame = gt.frame;
  for (const Polyline& lane : gt.lanes) {
    prediction.lanes.push_back({lane, confidence});
    confidence -= 0.01f;
  }
  for (std::size_t j = 0; j < gt.num_traffic_elements(); ++j) {
    prediction.traffic_elements.push_back(
        {gt.traffic_element_boxes[j], gt.traffic_element_attributes[j], confidence});
    confidence -= 0.01f;
  }
  prediction.topology_lclc.assign(gt.topology_lclc.begin(), gt.topology_lclc.end());
  prediction.topology_lcte.assign(gt.topology_lcte.begin(), gt.topology_lcte.end());
  return prediction;
}

TEST(Evaluator, LanesWithoutElementsAndElementsWithoutLanes) {
  const std::vector<FrameGroundTruth> gt = {
      frame("1", {lane_at(0), lane_at(3)}, {}, {}),
      frame("2", {}, {{10, 10, 50, 90}, {100, 10, 140, 50}}, {1, 4})};
  const EvaluationMetrics m = evaluate(gt, {copy_of(gt[0]), copy_of(gt[1])});
  EXPECT_FLOAT_EQ(m.det_l, 1.0);
  EXPECT_FLOAT_EQ(m.det_t, 1.0);  // attributes absent from both sides count 1
  EXPECT_DOUBLE_EQ(m.top_ll, 1.0);
  EXPECT_DOUBLE_EQ(m.top_lt, 0.0);  // both frames are skipped: nothing collected
  EXPECT_DOUBLE_EQ(m.score, 0.75);
  EXPECT_EQ(m.num_frames, 2u);
}

TEST(Evaluator, LanesPredictedInAFrameWithoutGroundTruthLanesAreFalsePositives) {
  const std::vector<FrameGroundTruth> gt = {frame("1", {lane_at(0), lane_at(3)}, {}, {}),
                                            frame("2", {}, {}, {})};
  FramePrediction spurious;
  spurious.frame = gt[1].frame;
  spurious.lanes = {{lane_at(0), 0.95f}};
  spurious.topology_lclc = {0.9f};
  const EvaluationMetrics m = evaluate(gt, {copy_of(gt[0]), spurious});
  // Ranked FP, TP, TP: precision 0, 1/2, 2/3 -> every point takes 2/3.
  for (double ap : m.det_l_per_threshold) EXPECT_NEAR(ap, 2.0 / 3.0, 1e-6);
  EXPECT_DOUBLE_EQ(m.top_ll, 1.0);  // the frame without ground-truth lanes is skipped
}

TEST(Evaluator, EmptyFramesChangeNothing) {
  const FrameGroundTruth busy = frame("1", {lane_at(0), lane_at(3.5f)}, {{10, 10, 50, 90}}, {2});
  FramePrediction shifted = copy_of(busy);
  shifted.lanes[0].points = lane_at(1.5f);
  const EvaluationMetrics alone = evaluate({busy}, {shifted});
  const FrameGroundTruth empty = frame("0", {}, {}, {});
  const EvaluationMetrics padded =
      evaluate({empty, busy, empty}, {copy_of(empty), shifted, copy_of(empty)});
  EXPECT_EQ(alone.det_l, padded.det_l);
  EXPECT_EQ(alone.det_t, padded.det_t);
  EXPECT_EQ(alone.top_ll, padded.top_ll);
  EXPECT_EQ(alone.top_lt, padded.top_lt);
  EXPECT_EQ(alone.score, padded.score);
  EXPECT_EQ(padded.num_frames, 3u);
}

TEST(Evaluator, NoPredictionsAtAll) {
  const std::vector<FrameGroundTruth> gt = {
      frame("1", {lane_at(0)}, {{10, 10, 50, 90}, {60, 10, 90, 40}}, {1, 5})};
  FramePrediction nothing;
  nothing.frame = gt[0].frame;
  const EvaluationMetrics m = evaluate(gt, {nothing});
  EXPECT_EQ(m.det_l, 0.0);
  EXPECT_NEAR(m.det_t, 11.0 / 13.0, 1e-7);  // 11 attributes absent from the ground truth
  EXPECT_EQ(m.top_ll, 0.0);
  EXPECT_EQ(m.top_lt, 0.0);
}

TEST(Evaluator, ReversedLanesDoNotMatch) {
  const std::vector<FrameGroundTruth> gt = {frame("1", {lane_at(0), lane_at(3)}, {}, {})};
  FramePrediction reversed = copy_of(gt[0]);
  for (LanePrediction& lane : reversed.lanes) std::reverse(lane.points.begin(), lane.points.end());
  EXPECT_EQ(evaluate(gt, {reversed}).det_l, 0.0);
}

// A noisy dataset with every kind of object and soft topology; confidences are distinct.
struct NoisySet {
  std::vector<FrameGroundTruth> gt;
  std::vector<FramePrediction> predictions;
};

NoisySet noisy_set() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  NoisySet set;
  float confidence = 0.999f;
  for (int f = 0; f < 4; ++f) {
    std::vector<Polyline> lanes;
    std::vector<Box> boxes;
    std::vector<int> attributes;
    for (int k = 0; k < 3 + f; ++k) lanes.push_back(lane_at(3.5f * k, 5.0f * f));
    for (int k = 0; k < 2 + f % 2; ++k) {
      boxes.push_back({100.0f * k, 50, 100.0f * k + 40, 120});
      attributes.push_back((f + k) % 4);
    }
    FrameGroundTruth gt = frame(std::to_string(f), lanes, boxes, attributes);
    for (auto& v : gt.topology_lclc) v = unit(rng) < 0.3f;
    for (auto& v : gt.topology_lcte) v = unit(rng) < 0.4f;
    FramePrediction p;
    p.frame = gt.frame;
    for (std::size_t k = 0; k < lanes.size() + 1; ++k) {  // one extra lane
      Polyline points = lane_at(3.5f * static_cast<float>(k) + 2.5f * unit(rng), 5.0f * f);
      p.lanes.push_back({points, confidence -= 0.013f});
    }
    for (std::size_t k = 0; k < boxes.size(); ++k) {
      Box box = boxes[k];
      box[0] += 30.0f * unit(rng);
      p.traffic_elements.push_back({box, attributes[k] + (unit(rng) < 0.2f), confidence -= 0.011f});
    }
    for (std::size_t k = 0; k < p.lanes.size() * p.lanes.size(); ++k) {
      p.topology_lclc.push_back(unit(rng));
    }
    for (std::size_t k = 0; k < p.lanes.size() * p.traffic_elements.size(); ++k) {
      p.topology_lcte.push_back(unit(rng));
    }
    set.gt.push_back(std::move(gt));
    set.predictions.push_back(std::move(p));
  }
  return set;
}

// Reorders a frame's predicted lanes and traffic elements, and its topology consistently.
FramePrediction permuted(const FramePrediction& p, std::mt19937& rng) {
  std::vector<std::size_t> lanes(p.num_lanes());
  std::vector<std::size_t> elements(p.num_traffic_elements());
  std::iota(lanes.begin(), lanes.end(), std::size_t{0});
  std::iota(elements.begin(), elements.end(), std::size_t{0});
  std::shuffle(lanes.begin(), lanes.end(), rng);
  std::shuffle(elements.begin(), elements.end(), rng);
  FramePrediction q;
  q.frame = p.frame;
  for (std::size_t i : lanes) q.lanes.push_back(p.lanes[i]);
  for (std::size_t j : elements) q.traffic_elements.push_back(p.traffic_elements[j]);
  for (std::size_t a : lanes) {
    for (std::size_t b : lanes) q.topology_lclc.push_back(p.lclc(a, b));
  }
  for (std::size_t a : lanes) {
    for (std::size_t e : elements) q.topology_lcte.push_back(p.lcte(a, e));
  }
  return q;
}

TEST(Evaluator, OrderOfPredictionsAndFramesDoesNotMatter) {
  const NoisySet set = noisy_set();
  const EvaluationMetrics reference = evaluate(set.gt, set.predictions);
  ASSERT_GT(reference.det_l, 0.05);  // a non-trivial set
  ASSERT_LT(reference.det_l, 0.95);
  ASSERT_GT(reference.top_lt, 0.0);

  std::mt19937 rng(11);
  std::vector<std::size_t> frames(set.gt.size());
  std::iota(frames.begin(), frames.end(), std::size_t{0});
  std::shuffle(frames.begin(), frames.end(), rng);
  std::vector<FrameGroundTruth> gt;
  std::vector<FramePrediction> predictions;
  for (std::size_t f : frames) {
    gt.push_back(set.gt[f]);
    predictions.push_back(permuted(set.predictions[f], rng));
  }
  const EvaluationMetrics shuffled = evaluate(gt, predictions);
  EXPECT_EQ(shuffled.det_l, reference.det_l);
  EXPECT_EQ(shuffled.det_t, reference.det_t);
  EXPECT_NEAR(shuffled.top_ll, reference.top_ll, 1e-12);
  EXPECT_NEAR(shuffled.top_lt, reference.top_lt, 1e-12);
  EXPECT_NEAR(shuffled.score, reference.score, 1e-12);
  EXPECT_EQ(shuffled.det_t_per_attribute, reference.det_t_per_attribute);
}

TEST(Evaluator, OlsCombinesWithSquareRoots) {
  const NoisySet set = noisy_set();
  const EvaluationMetrics m = evaluate(set.gt, set.predictions);
  EXPECT_NEAR(m.score, (m.det_l + m.det_t + std::sqrt(m.top_ll) + std::sqrt(m.top_lt)) / 4.0,
              1e-12);
  float mean = 0.0f;
  for (double ap : m.det_l_per_threshold) mean += static_cast<float>(ap);
  EXPECT_NEAR(m.det_l, mean / 3.0f, 1e-7);
}

TEST(Evaluator, RefusesAnEmptySet) {
  try {
    evaluate({}, {});
    FAIL() << "expected an input error";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), ExitStatus::kBadInput);
  }
}

TEST(Evaluator, RejectsPredictionsOfAnotherFrameOrShape) {
  const std::vector<FrameGroundTruth> gt = {frame("1", {lane_at(0)}, {}, {})};
  FramePrediction other = copy_of(gt[0]);
  other.frame.timestamp = "2";
  EXPECT_THROW(evaluate(gt, {other}), Error);
  FramePrediction not_finite = copy_of(gt[0]);
  not_finite.lanes[0].confidence = std::nanf("");
  EXPECT_THROW(evaluate(gt, {not_finite}), Error);
  FramePrediction bad_shape = copy_of(gt[0]);
  bad_shape.topology_lclc.push_back(0.5f);
  try {
    evaluate(gt, {bad_shape});
    FAIL() << "expected an input error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("val/00001/1"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace olv2
