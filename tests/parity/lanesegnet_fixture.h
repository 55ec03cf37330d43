#pragma once
// Shared by the LaneSegNet parity tests: the reduced fixture model built from
// configs/fixtures/lanesegnet_reduced.yaml through the real config builder, its weights, and the
// two fixture frames with LaneSegNet's ground truth (tests/data/lanesegnet/README.md).
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
#include "olv2/models/detectors/lanesegnet.h"
#include "support/test_paths.h"

namespace olv2::test {

inline std::filesystem::path lanesegnet_data(const std::string& name) {
  return source_dir() / "tests/data/lanesegnet" / name;
}

// LaneSegNet's LayerNorm weights among the formula entries (tests/data/lanesegnet/README.md).
inline const std::regex& lanesegnet_layer_norm_weights() {
  static const std::regex pattern(
      R"(pts_bbox_head\.transformer\.decoder\.layers\.[0-9]+\.norms\.[0-9]+\.weight|pts_bbox_head\.cls_(left_type_|right_type_)?branches\.[0-9]+\.[14]\.weight)");
  return pattern;
}

inline LaneSegNetOptions lanesegnet_fixture_options() {
  return LaneSegNetOptions::from_config(
      load_config_file(source_dir() / "configs/fixtures/lanesegnet_reduced.yaml").at("model"));
}

// The fixture model with the fixture weights; `shared` is the baseline_large fixture's state
// dict. `checkpoint`: the stages recomputed in backward (model.checkpoint).
inline std::shared_ptr<LaneSegNetImpl> lanesegnet_fixture_model(
    const NamedTensors& shared, const std::vector<std::string>& checkpoint = {}) {
  LaneSegNetOptions options = lanesegnet_fixture_options();
  options.checkpoint = checkpoint;
  auto model = std::make_shared<LaneSegNetImpl>(options);
  load_fixture_weights(*model, shared, lanesegnet_layer_norm_weights());
  return model;
}

// The frames `frames` of tests/data/gradients/two_frames.pt (all when empty) with LaneSegNet's
// ground truth from inputs.pt: lane segments [n, 90], labels, line types, the reduced BEV's
// instance masks and the lane segments' adjacency.
inline Batch lanesegnet_fixture_batch(const std::vector<int64_t>& frames) {
  Batch batch = read_fixture_batch(source_dir() / "tests/data/gradients/two_frames.pt",
                                   /*with_gt=*/true, frames);
  const TensorMap extra = load_tensor_dict(lanesegnet_data("inputs.pt"));
  batch.gt_te.clear();
  batch.gt_te_labels.clear();
  batch.gt_topology_lcte.clear();
  for (int64_t i = 0; i < batch.size(); ++i) {
    const std::string b = std::to_string(frames.empty() ? i : frames[static_cast<size_t>(i)]);
    const auto s = static_cast<size_t>(i);
    batch.gt_lc[s] = at_key(extra, "gt_lanes_3d." + b);
    batch.gt_lc_labels[s] = at_key(extra, "gt_lane_labels_3d." + b);
    batch.gt_topology_lclc[s] = at_key(extra, "gt_lane_adj." + b);
    batch.gt_lane_left_type.push_back(at_key(extra, "gt_lane_left_type." + b));
    batch.gt_lane_right_type.push_back(at_key(extra, "gt_lane_right_type." + b));
    batch.gt_instance_masks.push_back(at_key(extra, "gt_instance_masks." + b));
  }
  return batch;
}

}  // namespace olv2::test
