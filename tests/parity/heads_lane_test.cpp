// The lane head (CustomDETRHead, object_type lane) against the original's recorded tensors:
// forward from the recorded BEV feature, Hungarian assignment and losses from the recorded
// train-pass outputs, and decoding.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "heads_fixture.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

using test::at_key;

struct LaneFixture {
  test::TensorMap state, inter, input, outputs;
  nlohmann::json losses;
  CustomDetrHead head{nullptr};

  void load(const std::filesystem::path& dir) {
    state = test::load_tensor_dict(dir / "baseline_state_dict.pt");
    inter = test::load_tensor_dict(dir / "baseline_intermediates.pt");
    input = test::load_tensor_dict(dir / "baseline_input.pt");
    outputs = test::load_tensor_dict(dir / "baseline_outputs.pt");
    losses = test::load_json(dir / "baseline_losses.json");
    head = CustomDetrHead(test::detr_head_options(losses.at("model_cfg").at("lc_head")));
    test::load_module_state(*head, state, "lc_head.");
  }

  HeadOutputs train_outputs() const { return test::recorded_train_outputs(inter, "lc_head"); }
};

TEST(LaneHeadParity, ForwardFromBevFeatureMatchesTestPass) {
  LOAD_HEAD_FIXTURE(LaneFixture, f);
  torch::NoGradGuard no_grad;
  f.head->eval();
  const HeadOutputs out = f.head->forward(at_key(f.inter, "test.img_view_transformer"), {});
  test::expect_close(out.cls_scores, at_key(f.inter, "test.lc_head.0.0"), "cls_scores");
  test::expect_close(out.query_states, at_key(f.inter, "test.lc_head.2.0"), "dec_features");
  test::expect_close(out.query_states, at_key(f.inter, "test.lc_head.transformer.0"),
                     "transformer.0");
  test::expect_summaries_close(out.intermediates.at("memory"), f.inter,
                               "test.lc_head.transformer.1");
  // Decoded lanes (the fixture's test regression tensor was decoded in place by the original).
  const Detections lanes = f.head->decode_lanes(out.cls_scores[-1][0], out.reg_preds[-1][0]);
  test::expect_close(lanes.objects, at_key(f.inter, "test.lc_head.1.0")[0][0], "decoded lanes");
  test::expect_close(lanes.objects, at_key(f.outputs, "pred_lc.lanes"), "pred_lc.lanes");
  test::expect_close(lanes.scores, at_key(f.outputs, "pred_lc.scores"), "pred_lc.scores");
}

TEST(LaneHeadParity, AssignmentEqualsOriginal) {
  LOAD_HEAD_FIXTURE(LaneFixture, f);
  const HeadOutputs out = f.train_outputs();
  const AssignResult result =
      f.head->assign(out.cls_scores[-1][0], out.reg_preds[-1][0], at_key(f.input, "gt_lc"),
                     at_key(f.input, "gt_lc_labels"), {0, 0});
  const std::string prefix = "train.lc_head.assign_result.0.";
  EXPECT_TRUE(torch::equal(result.pos_inds, at_key(f.inter, prefix + "pos_inds.0")));
  EXPECT_TRUE(torch::equal(result.neg_inds, at_key(f.inter, prefix + "neg_inds.0")));
  EXPECT_TRUE(torch::equal(result.pos_assigned_gt_inds,
                           at_key(f.inter, prefix + "pos_assigned_gt_inds.0")));
}

TEST(LaneHeadParity, LossesEqualOriginal) {
  LOAD_HEAD_FIXTURE(LaneFixture, f);
  const DetrHeadLosses losses = f.head->loss(f.train_outputs(), {at_key(f.input, "gt_lc")},
                                             {at_key(f.input, "gt_lc_labels")}, {});
  const nlohmann::json& expected = f.losses.at("losses");
  ASSERT_EQ(losses.losses.size(), 2u);
  for (const auto& [name, value] : losses.losses) {
    test::expect_loss(value, expected.at("lc_" + name).get<double>(), "lc_" + name);
  }
  ASSERT_EQ(losses.assign_results.size(), 1u);
  EXPECT_TRUE(torch::equal(losses.assign_results[0][0].pos_inds,
                           at_key(f.inter, "train.lc_head.assign_result.0.pos_inds.0")));
}

}  // namespace
}  // namespace olv2
