#pragma once
// Shared by the TopoNet parity tests: the reduced fixture model built from
// configs/fixtures/toponet_reduced.yaml through the real config builder, its weights (the
// baseline_large fixture's backbone, neck and BEV constructor, the README's formula for the
// rest), and the two fixture frames with TopoNet's ground truth (tests/data/toponet/README.md).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
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
#include "olv2/models/detectors/toponet.h"
#include "olv2/util/state_dict.h"
#include "support/test_paths.h"

namespace olv2::test {

inline std::filesystem::path toponet_data(const std::string& name) {
  return source_dir() / "tests/data/toponet" / name;
}

// TopoNet's LayerNorm weights among the formula entries (tests/data/toponet/README.md).
inline const std::regex& toponet_layer_norm_weights() {
  static const std::regex pattern(
      R"((bbox_head|pts_bbox_head)\.transformer\.(encoder|decoder)\.layers\.[0-9]+\.norms\.[0-9]+\.weight|pts_bbox_head\.cls_branches\.[0-9]+\.[14]\.weight)");
  return pattern;
}

// The fixture model's options, as the YAML config builds them.
inline TopoNetOptions toponet_fixture_options() {
  return TopoNetOptions::from_config(
      load_config_file(source_dir() / "configs/fixtures/toponet_reduced.yaml").at("model"));
}

// The model of `model_options` with the fixture weights; `shared` is the baseline_large
// fixture's state dict.
inline std::shared_ptr<TopoNetImpl> toponet_fixture_model(const NamedTensors& shared,
                                                          const TopoNetOptions& model_options) {
  auto model = std::make_shared<TopoNetImpl>(model_options);
  load_fixture_weights(*model, shared, toponet_layer_norm_weights());
  return model;
}

// The fixture model with the fixture weights. `checkpoint`: the stages recomputed in backward
// (model.checkpoint).
inline std::shared_ptr<TopoNetImpl> toponet_fixture_model(
    const NamedTensors& shared, const std::vector<std::string>& checkpoint = {}) {
  TopoNetOptions model_options = toponet_fixture_options();
  model_options.checkpoint = checkpoint;
  return toponet_fixture_model(shared, model_options);
}

// The frames `frames` of tests/data/gradients/two_frames.pt (all when empty) with TopoNet's
// ground truth and crop offsets from inputs.pt.
inline Batch toponet_fixture_batch(const std::vector<int64_t>& frames) {
  Batch batch = read_fixture_batch(source_dir() / "tests/data/gradients/two_frames.pt",
                                   /*with_gt=*/true, frames);
  const TensorMap extra = load_tensor_dict(toponet_data("inputs.pt"));
  const at::Tensor crop = at_key(extra, "crop_shape");
  for (int64_t i = 0; i < batch.size(); ++i) {
    const int64_t frame = frames.empty() ? i : frames[static_cast<size_t>(i)];
    const std::string b = std::to_string(frame);
    const auto s = static_cast<size_t>(i);
    batch.gt_lc[s] = at_key(extra, "gt_lanes_3d." + b);
    batch.gt_lc_labels[s] = at_key(extra, "gt_lane_labels_3d." + b);
    batch.gt_topology_lclc[s] = at_key(extra, "gt_lane_adj." + b);
    batch.gt_topology_lcte[s] = at_key(extra, "gt_lane_lcte_adj." + b);
    batch.gt_te[s] = at_key(extra, "gt_bboxes." + b);
    batch.gt_te_labels[s] = at_key(extra, "gt_labels." + b);
    ImageMeta& meta = batch.metas[s];
    meta.crop_shape.clear();
    for (int64_t cam = 0; cam < crop.size(1); ++cam) {
      meta.crop_shape.push_back(
          {crop[frame][cam][0].item<int64_t>(), crop[frame][cam][1].item<int64_t>()});
    }
  }
  return batch;
}

// Declares `shared`, the baseline_large fixture's state dict; without it the test is skipped
// (a failure under CI=true).
#define LOAD_TOPONET_SHARED_WEIGHTS(shared)                             \
  OLV2_REQUIRE_FIXTURE(shared##_path_, "baseline_large_state_dict.pt"); \
  const NamedTensors shared = tensors_of(read_pth(shared##_path_))

}  // namespace olv2::test
