#pragma once
// Shared by the Map Element Bucket parity tests: the reduced fixture model built from
// configs/fixtures/lanesegnet_mapele_bucket_reduced.yaml through the real config builder, its
// weights, and the two fixture frames with the bucket's ground truth
// (tests/data/lanesegnet_mapele_bucket/README.md).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "formula_weights.h"
#include "heads_fixture.h"
#include "model_fixture.h"
#include "olv2/config/config_loader.h"
#include "olv2/data/fixture_sample.h"
#include "olv2/models/detectors/lanesegnet_mapele_bucket.h"
#include "support/test_paths.h"

namespace olv2::test {

inline std::filesystem::path bucket_data(const std::string& name) {
  return source_dir() / "tests/data/lanesegnet_mapele_bucket" / name;
}

// The bucket's LayerNorm weights among the formula entries
// (tests/data/lanesegnet_mapele_bucket/README.md).
inline const std::regex& bucket_layer_norm_weights() {
  static const std::regex pattern(
      R"((pts_bbox_head|bbox_head|area_head)\.transformer\.(encoder|decoder)\.layers\.[0-9]+\.norms\.[0-9]+\.weight|pts_bbox_head\.cls_(left_type_|right_type_)?branches\.[0-9]+\.[14]\.weight|area_head\.cls_branches\.[0-9]+\.1\.weight)");
  return pattern;
}

inline LaneSegNetMapElementBucketOptions bucket_fixture_options() {
  return LaneSegNetMapElementBucketOptions::from_config(
      load_config_file(source_dir() / "configs/fixtures/lanesegnet_mapele_bucket_reduced.yaml")
          .at("model"));
}

// The fixture model with the fixture weights; `shared` is the baseline_large fixture's state
// dict.
inline std::shared_ptr<LaneSegNetMapElementBucketImpl> bucket_fixture_model(
    const NamedTensors& shared) {
  auto model = std::make_shared<LaneSegNetMapElementBucketImpl>(bucket_fixture_options());
  load_fixture_weights(*model, shared, bucket_layer_norm_weights());
  return model;
}

// The frames `frames` of tests/data/gradients/two_frames.pt (all when empty) with the bucket's
// ground truth from inputs.pt: lane segments [n, 90] with their labels, line types, the reduced
// BEV's instance masks and adjacency; the traffic elements and the lane-segment to
// traffic-element adjacency; the areas [n_a, 20, 3] and their labels; the front crop's offsets.
inline Batch bucket_fixture_batch(const std::vector<int64_t>& frames) {
  Batch batch = read_fixture_batch(source_dir() / "tests/data/gradients/two_frames.pt",
                                   /*with_gt=*/true, frames);
  const TensorMap extra = load_tensor_dict(bucket_data("inputs.pt"));
  const at::Tensor crop = at_key(extra, "crop_shape");
  for (int64_t i = 0; i < batch.size(); ++i) {
    const int64_t frame = frames.empty() ? i : frames[static_cast<size_t>(i)];
    const std::string b = std::to_string(frame);
    const auto s = static_cast<size_t>(i);
    ImageMeta& meta = batch.metas[s];
    meta.crop_shape.clear();
    for (int64_t cam = 0; cam < crop.size(1); ++cam) {
      meta.crop_shape.push_back(
          {crop[frame][cam][0].item<int64_t>(), crop[frame][cam][1].item<int64_t>()});
    }
    batch.gt_lc[s] = at_key(extra, "gt_lanes_3d." + b);
    batch.gt_lc_labels[s] = at_key(extra, "gt_lane_labels_3d." + b);
    batch.gt_topology_lclc[s] = at_key(extra, "gt_lane_adj." + b);
    batch.gt_te[s] = at_key(extra, "gt_bboxes." + b);
    batch.gt_te_labels[s] = at_key(extra, "gt_labels." + b);
    batch.gt_topology_lcte[s] = at_key(extra, "gt_lane_lste_adj." + b);
    batch.gt_lane_left_type.push_back(at_key(extra, "gt_lane_left_type." + b));
    batch.gt_lane_right_type.push_back(at_key(extra, "gt_lane_right_type." + b));
    batch.gt_instance_masks.push_back(at_key(extra, "gt_instance_masks." + b));
    batch.gt_areas.push_back(at_key(extra, "gt_areas_3d." + b));
    batch.gt_area_labels.push_back(at_key(extra, "gt_area_labels_3d." + b));
  }
  return batch;
}

}  // namespace olv2::test
