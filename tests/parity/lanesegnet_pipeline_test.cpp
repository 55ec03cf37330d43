// LaneSegNet's ground truth against the original's (tests/data/lanesegnet/pipeline_expected.pt,
// written by scripts/make_lanesegnet_fixtures.sh with LaneSegNet's own data_process, dataset and
// transforms): the two fixture frames as its collection reads them and as its train pipeline
// turns them into targets at the full 100 x 200 BEV, pedestrian crossings as lane segments on
// both sides of the flip, LaneSegmentParameterize3D, and GenerateLaneSegmentMask's edge cases.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "heads_fixture.h"
#include "olv2/data/frame_reader.h"
#include "olv2/data/pipeline_data.h"
#include "olv2/data/transforms/generate_lane_segment_mask.h"
#include "olv2/data/transforms/lane_segment_parameterize_3d.h"
#include "olv2/data/transforms/load_lane_segment_annotations.h"
#include "olv2/evaluation/ground_truth.h"
#include "support/test_paths.h"

namespace olv2::test {
namespace {

constexpr int64_t kPoints = 10;

std::filesystem::path lanesegnet_path(const std::string& name) {
  return source_dir() / "tests/data/lanesegnet" / name;
}

const TensorMap& expected() {
  static const TensorMap map = load_tensor_dict(lanesegnet_path("pipeline_expected.pt"));
  return map;
}

at::Tensor line_tensor(const std::vector<float>& values) {
  return at::tensor(values).view({-1, 3});
}

// The annotation transforms of LaneSegNet's train pipeline, at the full BEV.
void annotate(PipelineData& data, int64_t bev_h = 100, int64_t bev_w = 200) {
  std::mt19937_64 rng(0);
  LoadLaneSegmentAnnotations(/*with_area=*/false).apply(data, rng);
  LaneSegmentParameterize3D(kPoints).apply(data, rng);
  GenerateLaneSegmentMask(kPoints, {-50.0, -25.0, 50.0, 25.0}, bev_h, bev_w).apply(data, rng);
}

void expect_equal(const at::Tensor& actual, const at::Tensor& reference, const std::string& key) {
  ASSERT_EQ(actual.sizes(), reference.sizes()) << key;
  EXPECT_TRUE(at::equal(actual.to(at::kDouble), reference.to(at::kDouble)))
      << key << ": max |diff| " << (actual.to(at::kDouble) - reference.to(at::kDouble)).abs().max();
}

TEST(LaneSegNetPipelineParity, TheFramesAsCollectedAndTheirTargets) {
  FrameReadOptions options;
  options.kind = CollectionKind::kLaneSegNet;
  const std::filesystem::path raw = lanesegnet_path("raw");
  const FrameIndex frames(raw, raw / "data_dict_lanesegnet_fixture.json", "train", options);
  ASSERT_EQ(frames.size(), 2u);
  for (size_t b = 0; b < frames.size(); ++b) {
    const Frame frame = frames.load(b);
    const std::string p = "frames." + std::to_string(b) + ".";
    // LaneSegNet's data_process: every line resampled to 10 points, float32.
    for (size_t i = 0; i < frame.lane_segments.size(); ++i) {
      const LaneSegment& segment = frame.lane_segments[i];
      const std::string key = p + "collected.lane_segment." + std::to_string(i) + ".";
      expect_equal(line_tensor(segment.centerline), at_key(expected(), key + "centerline"),
                   key + "centerline");
      expect_equal(line_tensor(segment.left_laneline), at_key(expected(), key + "left_laneline"),
                   key + "left_laneline");
      expect_equal(line_tensor(segment.right_laneline), at_key(expected(), key + "right_laneline"),
                   key + "right_laneline");
    }
    for (size_t j = 0; j < frame.areas.size(); ++j) {
      const std::string key = p + "collected.area." + std::to_string(j) + ".points";
      expect_equal(line_tensor(frame.areas[j].points), at_key(expected(), key), key);
    }

    PipelineData data = make_pipeline_data(frame, raw.string());
    annotate(data);
    const int64_t n = data.num_lanes;
    expect_equal(at::tensor(data.gt_lc).view({n, 9 * kPoints}),
                 at_key(expected(), p + "gt_lanes_3d"), p + "gt_lanes_3d");
    expect_equal(at::tensor(data.gt_lane_labels), at_key(expected(), p + "gt_lane_labels_3d"),
                 p + "gt_lane_labels_3d");
    expect_equal(at::tensor(data.gt_lane_left_type), at_key(expected(), p + "gt_lane_left_type"),
                 p + "gt_lane_left_type");
    expect_equal(at::tensor(data.gt_lane_right_type), at_key(expected(), p + "gt_lane_right_type"),
                 p + "gt_lane_right_type");
    const at::Tensor adjacency = at_key(expected(), p + "gt_lane_adj");
    expect_equal(at::tensor(data.gt_topology_lclc).view(adjacency.sizes()), adjacency,
                 p + "gt_lane_adj");
    expect_equal(at::tensor(data.gt_instance_masks).view({n, 100, 200}),
                 at_key(expected(), p + "gt_instance_masks"), p + "gt_instance_masks");
  }
}

// ped2lane_segment on the collection's float32 points: the heading in float32, and exactly
// -45 and 135 degrees not flipped.
TEST(LaneSegNetPipelineParity, CrossingsBecomeLaneSegmentsOnBothSidesOfTheFlip) {
  int cases = 0;
  for (const auto& [key, value] : expected()) {
    const std::string suffix = ".float32.points";
    if (key.rfind("ped.", 0) != 0 || key.size() < suffix.size() ||
        key.compare(key.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    const std::string p = key.substr(0, key.size() - std::string("points").size());
    Area crossing;
    const at::Tensor points = value.to(at::kFloat).contiguous();
    crossing.points.assign(points.data_ptr<float>(), points.data_ptr<float>() + points.numel());
    const std::array<std::vector<float>, 3> lines = ped_crossing_as_lane_segment(crossing);
    expect_equal(line_tensor(lines[0]), at_key(expected(), p + "centerline"), p + "centerline");
    expect_equal(line_tensor(lines[1]), at_key(expected(), p + "left"), p + "left");
    expect_equal(line_tensor(lines[2]), at_key(expected(), p + "right"), p + "right");
    ++cases;
  }
  EXPECT_EQ(cases, 9);
}

// The boundaries resampled by their ground length, the centerline their mean; the annotated
// centerline is not used. The inputs are float64 here and float32 in a frame, so they are rounded
// to float32 first.
TEST(LaneSegNetPipelineParity, ParameterizeResamplesTheBoundariesAndAveragesThem) {
  PipelineData data;
  data.frame_format = FrameFormat::kLaneSegment;
  data.annotated = true;
  for (int i = 0; i < 2; ++i) {
    const std::string p = "param.input." + std::to_string(i) + ".";
    std::array<std::vector<float>, 3> lines;
    int line = 0;
    for (const char* name : {"centerline", "left", "right"}) {
      const at::Tensor points = at_key(expected(), p + name).to(at::kFloat).contiguous();
      lines[line++].assign(points.data_ptr<float>(), points.data_ptr<float>() + points.numel());
    }
    data.gt_lane_segment_lines.push_back(lines);
  }
  std::mt19937_64 rng(0);
  LaneSegmentParameterize3D(kPoints).apply(data, rng);
  const at::Tensor ours = at::tensor(data.gt_lc).view({2, 9 * kPoints});
  const at::Tensor reference = at_key(expected(), "param.output");
  ASSERT_EQ(ours.sizes(), reference.sizes());
  // Measured: 4.8e-7 (one float32 step at these magnitudes), from rounding the inputs first.
  EXPECT_LE((ours - reference).abs().max().item<float>(), 1e-6f);
}

// fillPoly's cells, the int32 truncation toward zero, the map grid (not the BEV's pc_range).
TEST(LaneSegNetPipelineParity, MasksAreFilledAsTheOriginalFillsThem) {
  const at::Tensor input = at_key(expected(), "mask.input").contiguous();
  PipelineData data;
  data.frame_format = FrameFormat::kLaneSegment;
  data.annotated = true;
  data.num_lanes = input.size(0);
  data.lane_points = 3 * kPoints;
  data.gt_lc_parameterized = true;
  data.gt_lc.assign(input.data_ptr<float>(), input.data_ptr<float>() + input.numel());
  std::mt19937_64 rng(0);
  GenerateLaneSegmentMask(kPoints, {-50.0, -25.0, 50.0, 25.0}, 100, 200).apply(data, rng);
  const at::Tensor masks = at::tensor(data.gt_instance_masks).view({data.num_lanes, 100, 200});
  const at::Tensor reference = at_key(expected(), "mask.output");
  for (int64_t i = 0; i < data.num_lanes; ++i) {
    expect_equal(masks[i], reference[i], "mask.output." + std::to_string(i));
  }
}

// LaneSegNet's own evaluation formats the ground-truth crossings (its `format_openlanev2_gt`):
// corners 0-1 and 2-3 each resampled to 10 points, the road boundaries left out.
TEST(LaneSegNetPipelineParity, ItsEvaluationsCrossingsAreFormattedAsTheOriginalFormatsThem) {
  FrameReadOptions options;
  options.kind = CollectionKind::kLaneSegNet;
  const std::filesystem::path raw = lanesegnet_path("raw");
  const FrameIndex frames(raw, raw / "data_dict_lanesegnet_fixture.json", "train", options);
  const FrameGroundTruth gt = ground_truth_from_frame(frames.load(0), CollectionKind::kLaneSegNet);
  ASSERT_TRUE(gt.lanesegnet_crossings.has_value());
  size_t crossings = 0;
  while (expected().count("format_gt.output." + std::to_string(crossings) + ".points")) ++crossings;
  ASSERT_EQ(gt.lanesegnet_crossings->size(), crossings);
  ASSERT_GT(crossings, 0u);
  for (size_t j = 0; j < crossings; ++j) {
    const std::string key = "format_gt.output." + std::to_string(j) + ".points";
    const at::Tensor reference = at_key(expected(), key).to(at::kDouble);
    std::vector<float> flat;
    for (const auto& point : (*gt.lanesegnet_crossings)[j]) {
      flat.insert(flat.end(), point.begin(), point.end());
    }
    const at::Tensor ours = line_tensor(flat).to(at::kDouble);
    ASSERT_EQ(ours.sizes(), reference.sizes()) << key;
    // The original resamples in float64 and keeps it; ours is stored as float32: within half a
    // float32 step of a coordinate up to 64 m (measured: 1.7e-6).
    EXPECT_LE((ours - reference).abs().max().item<double>(), 1.9e-6) << key;
  }
}

}  // namespace
}  // namespace olv2::test
