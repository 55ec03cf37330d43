#pragma once
// Shared by the BaselineLarge lane-head and relationship-head parity tests: the fixture files
// and the head options mapped by hand from the fixture's `model_cfg`.
#include <torch/torch.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "heads_fixture.h"
#include "olv2/models/heads/lc_deformable_detr_head.h"
#include "olv2/models/heads/relationship_head.h"

namespace olv2::test {

// `model_cfg.pts_bbox_head` and `model_cfg.train_cfg.pts.assigner` as lane-head options.
inline LcDeformableDetrHeadOptions large_lc_head_options(const nlohmann::json& model_cfg) {
  const nlohmann::json& cfg = model_cfg.at("pts_bbox_head");
  const nlohmann::json& transformer = cfg.at("transformer");
  const nlohmann::json& decoder = transformer.at("decoder");
  const nlohmann::json& layer = decoder.at("transformerlayers");
  const nlohmann::json& self_attn = layer.at("attn_cfgs").at(0);
  const nlohmann::json& cross_attn = layer.at("attn_cfgs").at(1);
  const nlohmann::json& ffn = layer.at("ffn_cfgs");
  LcDeformableDetrHeadOptions options;
  options.num_classes = cfg.at("num_classes");
  options.in_channels = cfg.at("in_channels");
  options.num_query = cfg.at("num_query");
  options.bev_h = cfg.at("bev_h");
  options.bev_w = cfg.at("bev_w");
  options.code_size = cfg.at("code_size");
  options.code_weights = cfg.at("code_weights").get<std::vector<double>>();
  const std::vector<double> range = cfg.at("pc_range");
  std::copy(range.begin(), range.end(), options.pc_range.begin());
  options.sync_cls_avg_factor = cfg.at("sync_cls_avg_factor");
  options.embed_dims = transformer.at("embed_dims");
  options.num_decoder_layers = decoder.at("num_layers");
  options.num_heads = self_attn.at("num_heads");
  options.attention_dropout = self_attn.at("dropout");
  options.num_levels = cross_attn.value("num_levels", 4);
  options.num_points = cross_attn.value("num_points", 4);
  options.msda_dropout = cross_attn.value("dropout", 0.1);
  options.feedforward_channels = ffn.at("feedforward_channels");
  options.ffn_drop = ffn.at("ffn_drop");
  options.loss_cls = focal_options(cfg.at("loss_cls"));
  options.loss_bbox = weighted_loss<L1Loss>(cfg.at("loss_bbox"));
  const nlohmann::json& assigner = model_cfg.at("train_cfg").at("pts").at("assigner");
  auto lane_assigner = std::make_shared<LaneHungarianAssignerOptions>();
  lane_assigner->cls_cost = focal_cost_options(assigner.at("cls_cost"));
  lane_assigner->reg_cost = lane_l1_cost(assigner.at("reg_cost"));
  lane_assigner->normalize = assigner.value("normalize", false);
  options.assigner = lane_assigner;
  return options;
}

inline RelationshipHeadOptions large_relationship_head_options(const nlohmann::json& cfg) {
  RelationshipHeadOptions options;
  options.in_channels_o1 = cfg.at("in_channels_o1");
  options.in_channels_o2 = cfg.at("in_channels_o2");
  options.shared_param = cfg.at("shared_param");
  options.loss_rel = focal_options(cfg.at("loss_rel"));
  return options;
}

// The recorded assignment of `head` ("pts_bbox_head" or "bbox_head") at decoder layer `layer`,
// sample 0.
inline AssignResult large_recorded_assignment(const TensorMap& intermediates,
                                              const std::string& head, int64_t layer) {
  const std::string prefix = "train." + head + ".assign_result." + std::to_string(layer) + ".";
  AssignResult result;
  result.pos_inds = at_key(intermediates, prefix + "pos_inds.0");
  result.neg_inds = at_key(intermediates, prefix + "neg_inds.0");
  result.pos_assigned_gt_inds = at_key(intermediates, prefix + "pos_assigned_gt_inds.0");
  return result;
}

struct LargeLaneFixture {
  TensorMap state, inter, input, outputs;
  nlohmann::json losses;

  void load(const std::filesystem::path& dir) {
    state = load_tensor_dict(dir / "baseline_large_state_dict.pt");
    inter = load_tensor_dict(dir / "baseline_large_intermediates.pt");
    input = load_tensor_dict(dir / "baseline_large_input.pt");
    outputs = load_tensor_dict(dir / "baseline_large_outputs.pt");
    losses = load_json(dir / "baseline_large_losses.json");
  }
  const nlohmann::json& model_cfg() const { return losses.at("model_cfg"); }
};

// Declares `f`, a LargeLaneFixture; without the fixtures the test is skipped (a failure under
// CI=true).
#define LOAD_LARGE_LANE_FIXTURE(f)                                \
  OLV2_REQUIRE_FIXTURE(large_dir_, "baseline_large_losses.json"); \
  ::olv2::test::LargeLaneFixture f;                               \
  ASSERT_NO_FATAL_FAILURE(f.load(large_dir_.parent_path()))

}  // namespace olv2::test
