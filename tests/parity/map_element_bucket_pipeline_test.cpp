// The Map Element Bucket's ground truth against the original's
// (tests/data/lanesegnet_mapele_bucket/pipeline_expected.pt, written from the devkit's own
// collect and the bucket's dataset and transforms): the two fixture frames as the devkit's `_ls`
// collection reads them (lines at 10 points, areas at 20) and as the bucket's train pipeline
// turns them into targets at the full 100 x 200 BEV: lane segments alone (no crossing among
// them), every area a point set of 20 points with its label, the lane-segment to
// traffic-element adjacency. The traffic elements' crop and scale are TopoNet's transforms,
// checked by its pipeline test.
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
#include "support/test_paths.h"

namespace olv2::test {
namespace {

std::filesystem::path bucket_path(const std::string& name) {
  return source_dir() / "tests/data/lanesegnet_mapele_bucket" / name;
}

void expect_same(const at::Tensor& actual, const at::Tensor& reference, const std::string& key) {
  ASSERT_EQ(actual.sizes(), reference.sizes()) << key;
  EXPECT_TRUE(at::equal(actual.to(at::kDouble), reference.to(at::kDouble)))
      << key << ": max |diff| " << (actual.to(at::kDouble) - reference.to(at::kDouble)).abs().max();
}

TEST(MapElementBucketPipelineParity, TheFramesAsTheDevkitCollectsThemAndTheirTargets) {
  const TensorMap expected = load_tensor_dict(bucket_path("pipeline_expected.pt"));
  FrameReadOptions options;
  options.kind = CollectionKind::kLaneSegment;
  const std::filesystem::path raw = bucket_path("raw");
  const FrameIndex frames(raw, raw / "data_dict_mapele_bucket_fixture.json", "train", options);
  ASSERT_EQ(frames.size(), 2u);
  for (size_t b = 0; b < frames.size(); ++b) {
    const Frame frame = frames.load(b);
    const std::string p = "frames." + std::to_string(b) + ".";
    for (size_t j = 0; j < frame.areas.size(); ++j) {
      const std::string key = p + "collected.area." + std::to_string(j) + ".points";
      expect_same(at::tensor(frame.areas[j].points).view({-1, 3}), at_key(expected, key), key);
    }

    PipelineData data = make_pipeline_data(frame, raw.string());
    std::mt19937_64 rng(0);
    LoadLaneSegmentAnnotations(/*with_area=*/true).apply(data, rng);
    LaneSegmentParameterize3D(10).apply(data, rng);
    GenerateLaneSegmentMask(10, {-50.0, -25.0, 50.0, 25.0}, 100, 200).apply(data, rng);
    const int64_t n = data.num_lanes;
    ASSERT_EQ(static_cast<size_t>(n), frame.lane_segments.size()) << "no crossing appended";
    expect_same(at::tensor(data.gt_lc).view({n, 90}), at_key(expected, p + "gt_lanes_3d"),
                p + "gt_lanes_3d");
    expect_same(at::tensor(data.gt_lane_labels), at_key(expected, p + "gt_lane_labels_3d"),
                p + "gt_lane_labels_3d");
    expect_same(at::tensor(data.gt_instance_masks).view({n, 100, 200}),
                at_key(expected, p + "gt_instance_masks"), p + "gt_instance_masks");
    const at::Tensor lste = at_key(expected, p + "gt_lane_lste_adj");
    expect_same(at::tensor(data.gt_topology_lcte).view(lste.sizes()), lste, p + "gt_lane_lste_adj");
    const at::Tensor areas = at_key(expected, p + "gt_areas_3d");
    ASSERT_EQ(data.area_points, 20);
    const at::Tensor ours = at::tensor(data.gt_area_points, at::kDouble).view(areas.sizes());
    // Resampled in float64 as shapely does, to the last bits of a double (measured: 3.6e-15 m);
    // the head rounds them to float32.
    EXPECT_LE((ours - areas).abs().max().item<double>(), 1e-12) << p + "gt_areas_3d";
    EXPECT_TRUE(at::equal(ours.to(at::kFloat), areas.to(at::kFloat))) << p + "gt_areas_3d";
    expect_same(at::tensor(data.gt_area_labels), at_key(expected, p + "gt_area_labels_3d"),
                p + "gt_area_labels_3d");
    EXPECT_TRUE(data.gt_areas.empty());
  }
}

}  // namespace
}  // namespace olv2::test
