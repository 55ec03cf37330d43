// BaselineLarge's traffic-element head (TEDeformableDETRHead) against the original: forward from
// the recorded front-camera FPN levels (train pass without dropout, test pass), the Hungarian
// assignment and losses of every decoder layer, and the decoded test-pass boxes.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "heads_fixture.h"
#include "model_fixture.h"
#include "olv2/models/heads/te_deformable_detr_head.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

using test::at_key;

// The Python config `model_cfg.bbox_head` (+ `bbox_train_cfg`) as head options, by hand.
TeDeformableDetrHeadOptions te_large_head_options(const nlohmann::json& model_cfg) {
  const nlohmann::json& cfg = model_cfg.at("bbox_head");
  const nlohmann::json& encoder = cfg.at("transformer").at("encoder");
  const nlohmann::json& decoder = cfg.at("transformer").at("decoder");
  const nlohmann::json& multihead = decoder.at("transformerlayers").at("attn_cfgs").at(0);
  const nlohmann::json& deformable = decoder.at("transformerlayers").at("attn_cfgs").at(1);
  const nlohmann::json& ffn = decoder.at("transformerlayers").at("ffn_cfgs");
  TeDeformableDetrHeadOptions options;
  options.num_classes = cfg.at("num_classes");
  options.in_channels = cfg.at("in_channels");
  options.num_query = cfg.at("num_query");
  options.embed_dims = deformable.at("embed_dims");
  options.num_feature_levels = cfg.at("transformer").value("num_feature_levels", 4);
  options.num_encoder_layers = encoder.at("num_layers");
  options.num_decoder_layers = decoder.at("num_layers");
  options.num_heads = multihead.at("num_heads");
  EXPECT_EQ(deformable.value("num_heads", 8), options.num_heads);
  options.num_points = deformable.value("num_points", 4);
  options.feedforward_channels = ffn.at("feedforward_channels");
  options.ffn_drop = ffn.at("ffn_drop");
  options.attention_dropout = multihead.at("dropout");
  options.msda_dropout = deformable.value("dropout", 0.1);
  options.sync_cls_avg_factor = cfg.at("sync_cls_avg_factor");
  options.with_box_refine = cfg.at("with_box_refine");
  const nlohmann::json& pos = cfg.at("positional_encoding");
  options.positional_encoding.num_feats = pos.at("num_feats");
  options.positional_encoding.normalize = pos.at("normalize");
  options.positional_encoding.offset = pos.at("offset");
  options.loss_cls = test::focal_options(cfg.at("loss_cls"));
  options.loss_bbox = test::weighted_loss<L1Loss>(cfg.at("loss_bbox"));
  options.loss_iou = test::weighted_loss<GIoULoss>(cfg.at("loss_iou"));
  const nlohmann::json& assigner = model_cfg.at("bbox_train_cfg").at("assigner");
  auto box_assigner = std::make_shared<HungarianAssignerOptions>();
  box_assigner->cls_cost = test::focal_cost_options(assigner.at("cls_cost"));
  EXPECT_EQ(assigner.at("reg_cost").at("box_format"), "xywh");
  box_assigner->reg_cost = test::bbox_l1_cost(assigner.at("reg_cost"));
  EXPECT_EQ(assigner.at("iou_cost").at("iou_mode"), "giou");
  box_assigner->iou_cost = test::iou_cost(assigner.at("iou_cost"));
  options.assigner = box_assigner;
  return options;
}

struct LargeTeFixture {
  std::filesystem::path dir;
  test::TensorMap state, inter, input, outputs;
  nlohmann::ordered_json losses;
  TeDeformableDetrHead head{nullptr};
  DetrImageGeometry geometry;

  void load(const std::filesystem::path& fixture_dir) {
    dir = fixture_dir;
    state = test::load_tensor_dict(dir / "baseline_large_state_dict.pt");
    inter = test::load_tensor_dict(dir / "baseline_large_intermediates.pt");
    input = test::load_tensor_dict(dir / "baseline_large_input.pt");
    outputs = test::load_tensor_dict(dir / "baseline_large_outputs.pt");
    std::ifstream in(dir / "baseline_large_losses.json");
    losses = nlohmann::ordered_json::parse(in);
    head = TeDeformableDetrHead(
        te_large_head_options(nlohmann::json::parse(losses.at("model_cfg").dump())));
    test::load_module_state(*head, state, "bbox_head.");
    // The detector's TE metas: the padded input of camera 0 and its un-padded image.
    const at::Tensor img = at_key(input, "img");
    const at::Tensor img_shape = at_key(input, "img_shape");
    geometry.batch_input_shape = {img.size(-2), img.size(-1)};
    geometry.img_shapes.emplace_back(img_shape[0][0][0].item<int64_t>(),
                                     img_shape[0][0][1].item<int64_t>());
  }

  // Camera 0 of every FPN level, [1, C, h, w].
  std::vector<at::Tensor> front_levels(const std::string& pass) const {
    std::vector<at::Tensor> levels;
    for (int l = 0; l < 4; ++l) {
      levels.push_back(at_key(inter, pass + ".img_neck." + std::to_string(l)).slice(0, 0, 1));
    }
    return levels;
  }

  HeadOutputs train_forward() {
    head->train();
    head->set_dropout(0.0);
    return head->forward(front_levels("train"), geometry);
  }
};

#define LOAD_LARGE_TE_FIXTURE(f)                                 \
  OLV2_REQUIRE_FIXTURE(dir_, "baseline_large_intermediates.pt"); \
  LargeTeFixture f;                                              \
  ASSERT_NO_FATAL_FAILURE(f.load(dir_.parent_path()))

void te_expect_outputs_match(const HeadOutputs& out, const test::TensorMap& inter,
                             const std::string& pass) {
  const std::string key = pass + ".bbox_head.";
  test::expect_recorded(out.intermediates.at("inter_states"), inter, key + "transformer.0");
  test::expect_recorded(out.intermediates.at("init_reference"), inter, key + "transformer.1");
  test::expect_recorded(out.intermediates.at("inter_references"), inter, key + "transformer.2");
  test::expect_recorded(out.query_states, inter, key + "history_states");
  test::expect_recorded(out.cls_scores, inter, key + "all_cls_scores");
  test::expect_recorded(out.reg_preds, inter, key + "all_bbox_preds");
}

TEST(LargeTeHeadParity, ParametersFollowTheOriginalStateDictOrder) {
  OLV2_REQUIRE_FIXTURE(state_path, "baseline_large_state_dict.pt");
  const nlohmann::json cfg =
      test::load_json(state_path.parent_path() / "baseline_large_losses.json").at("model_cfg");
  const TeDeformableDetrHead head(te_large_head_options(cfg));
  std::vector<std::string> expected, actual;
  for (const auto& [key, value] : test::load_named_tensors(state_path)) {
    if (key.rfind("bbox_head.", 0) == 0) expected.push_back(key.substr(10));
  }
  for (const auto& item : head->named_parameters()) actual.push_back(item.key());
  EXPECT_EQ(actual, expected);
  EXPECT_TRUE(head->named_buffers().is_empty());
}

TEST(LargeTeHeadParity, TrainForwardMatchesWithoutDropout) {
  LOAD_LARGE_TE_FIXTURE(f);
  torch::NoGradGuard no_grad;
  te_expect_outputs_match(f.train_forward(), f.inter, "train");
}

TEST(LargeTeHeadParity, TestForwardAndDecodingMatch) {
  LOAD_LARGE_TE_FIXTURE(f);
  torch::NoGradGuard no_grad;
  f.head->eval();
  const HeadOutputs out = f.head->forward(f.front_levels("test"), f.geometry);
  te_expect_outputs_match(out, f.inter, "test");
  // The fixture's simple_test ran with rescale=False: boxes in resized-image pixels.
  const Detections boxes = f.head->decode(out, 0, f.geometry.img_shapes[0], {});
  test::expect_close(boxes.objects, at_key(f.outputs, "pred_te.0"), "pred_te.0");
  test::expect_close(boxes.scores, at_key(f.outputs, "pred_te.1"), "pred_te.1");
}

TEST(LargeTeHeadParity, AssignmentsOfEveryLayerEqualOriginal) {
  LOAD_LARGE_TE_FIXTURE(f);
  const HeadOutputs out = f.train_forward();
  const DetrHeadLosses losses =
      f.head->loss(out, {at_key(f.input, "gt_te")}, {at_key(f.input, "gt_te_labels")}, f.geometry);
  ASSERT_EQ(losses.assign_results.size(), 2u);
  for (size_t l = 0; l < losses.assign_results.size(); ++l) {
    const AssignResult& result = losses.assign_results[l].at(0);
    const std::string prefix = "train.bbox_head.assign_result." + std::to_string(l) + ".";
    EXPECT_TRUE(torch::equal(result.pos_inds, at_key(f.inter, prefix + "pos_inds.0"))) << prefix;
    EXPECT_TRUE(torch::equal(result.neg_inds, at_key(f.inter, prefix + "neg_inds.0"))) << prefix;
    EXPECT_TRUE(torch::equal(result.pos_assigned_gt_inds,
                             at_key(f.inter, prefix + "pos_assigned_gt_inds.0")))
        << prefix;
  }
}

TEST(LargeTeHeadParity, LossesEqualOriginalInOrder) {
  LOAD_LARGE_TE_FIXTURE(f);
  const HeadOutputs out = f.train_forward();
  const DetrHeadLosses losses =
      f.head->loss(out, {at_key(f.input, "gt_te")}, {at_key(f.input, "gt_te_labels")}, f.geometry);
  std::vector<std::string> expected_names;
  for (const auto& [name, value] : f.losses.at("losses").items()) {
    if (name.rfind("bbox_head.", 0) == 0) expected_names.push_back(name);
  }
  std::vector<std::string> names;
  for (const auto& [name, value] : losses.losses) {
    names.push_back("bbox_head." + name);
    test::expect_loss(value, f.losses.at("losses").at(names.back()).get<double>(), names.back());
  }
  EXPECT_EQ(names, expected_names);
}

}  // namespace
}  // namespace olv2
