// The BaselineLarge lane head (LCDeformableDETRHead) against the original's recorded tensors:
// both passes from the recorded BEV features, the Hungarian assignments and the losses of
// every decoder layer, the decoding, and which parameters training reaches.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "large_lane_fixture.h"

namespace olv2 {
namespace {

using test::at_key;

LcDeformableDetrHead lc_loaded_head(const test::LargeLaneFixture& f) {
  LcDeformableDetrHead head(test::large_lc_head_options(f.model_cfg()));
  test::load_module_state(*head, f.state, "pts_bbox_head.");
  return head;
}

// The original's train pass: train mode with every dropout at 0.
HeadOutputs lc_train_forward(const test::LargeLaneFixture& f, LcDeformableDetrHead& head) {
  head->train();
  head->set_dropout(0.0);
  return head->forward(at_key(f.inter, "train.bev_constructor"));
}

void lc_expect_outputs(const HeadOutputs& out, const test::TensorMap& inter,
                       const std::string& pass) {
  const std::string prefix = pass + ".pts_bbox_head.";
  test::expect_recorded(out.cls_scores, inter, prefix + "all_cls_scores");
  test::expect_recorded(out.reg_preds, inter, prefix + "all_lanes_preds");
  test::expect_recorded(out.query_states, inter, prefix + "history_states");
}

TEST(LargeLcHeadParity, ParameterNamesAndShapesEqualOriginal) {
  LOAD_LARGE_LANE_FIXTURE(f);
  LcDeformableDetrHead head(test::large_lc_head_options(f.model_cfg()));
  ASSERT_NO_FATAL_FAILURE(test::load_module_state(*head, f.state, "pts_bbox_head."));
  EXPECT_FALSE(head->code_weights().requires_grad());
}

TEST(LargeLcHeadParity, TrainForwardMatchesOriginal) {
  LOAD_LARGE_LANE_FIXTURE(f);
  LcDeformableDetrHead head = lc_loaded_head(f);
  lc_expect_outputs(lc_train_forward(f, head), f.inter, "train");
}

TEST(LargeLcHeadParity, TestForwardAndDecodingMatchOriginal) {
  LOAD_LARGE_LANE_FIXTURE(f);
  LcDeformableDetrHead head = lc_loaded_head(f);
  head->eval();
  torch::NoGradGuard no_grad;
  const HeadOutputs out = head->forward(at_key(f.inter, "test.bev_constructor"));
  lc_expect_outputs(out, f.inter, "test");
  const Detections lanes = head->decode(out, 0, {}, {});
  test::expect_close(lanes.objects, at_key(f.outputs, "pred_lc.0"), "pred_lc.0");
  test::expect_close(lanes.scores, at_key(f.outputs, "pred_lc.1"), "pred_lc.1");
}

TEST(LargeLcHeadParity, LossesAndAssignmentsEqualOriginal) {
  LOAD_LARGE_LANE_FIXTURE(f);
  LcDeformableDetrHead head = lc_loaded_head(f);
  const DetrHeadLosses losses = head->loss(lc_train_forward(f, head), {at_key(f.input, "gt_lc")},
                                           {at_key(f.input, "gt_lc_labels")}, {});
  const std::vector<std::string> expected_order = {"loss_lane_cls", "loss_lane_reg",
                                                   "d0.loss_lane_cls", "d0.loss_lane_reg"};
  ASSERT_EQ(losses.losses.size(), expected_order.size());
  const nlohmann::json& expected = f.losses.at("losses");
  for (size_t i = 0; i < expected_order.size(); ++i) {
    const auto& [name, value] = losses.losses[i];
    EXPECT_EQ(name, expected_order[i]);
    test::expect_loss(value, expected.at("lane_head." + name).get<double>(), name);
  }
  ASSERT_EQ(losses.assign_results.size(), 2u);
  for (int64_t layer = 0; layer < 2; ++layer) {
    const AssignResult recorded = test::large_recorded_assignment(f.inter, "pts_bbox_head", layer);
    const AssignResult& port = losses.assign_results[layer].at(0);
    EXPECT_TRUE(torch::equal(port.pos_inds, recorded.pos_inds)) << "layer " << layer;
    EXPECT_TRUE(torch::equal(port.neg_inds, recorded.neg_inds)) << "layer " << layer;
    EXPECT_TRUE(torch::equal(port.pos_assigned_gt_inds, recorded.pos_assigned_gt_inds))
        << "layer " << layer;
  }
}

TEST(LargeLcHeadGradients, EveryTrainableParameterGetsAFiniteGradient) {
  LOAD_LARGE_LANE_FIXTURE(f);
  LcDeformableDetrHead head = lc_loaded_head(f);
  const DetrHeadLosses losses = head->loss(lc_train_forward(f, head), {at_key(f.input, "gt_lc")},
                                           {at_key(f.input, "gt_lc_labels")}, {});
  at::Tensor total = torch::zeros({});
  for (const auto& [name, value] : losses.losses) total = total + value;
  total.backward();
  for (const auto& item : head->named_parameters()) {
    const at::Tensor& grad = item.value().grad();
    if (item.key() == "code_weights") {
      EXPECT_FALSE(grad.defined()) << item.key();
      continue;
    }
    ASSERT_TRUE(grad.defined()) << item.key();
    EXPECT_TRUE(grad.isfinite().all().item<bool>()) << item.key();
    EXPECT_GT(grad.abs().sum().item<double>(), 0.0) << item.key();
  }
}

}  // namespace
}  // namespace olv2
