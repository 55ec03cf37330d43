// The BaselineLarge relationship heads (lclc_head, lcte_head) against the original: topology
// from the recorded decoder states, losses through the recorded last-layer assignments, and
// the gradients of the lane and relationship heads under the original's total loss.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "large_lane_fixture.h"
#include "olv2/models/gradient_record.h"
#include "olv2/util/pth/pth_file.h"
#include "support/gradient_tolerance.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

using test::at_key;

RelationshipHead rel_loaded_head(const test::LargeLaneFixture& f, const std::string& name) {
  RelationshipHead head(test::large_relationship_head_options(f.model_cfg().at(name)));
  test::load_module_state(*head, f.state, name + ".");
  return head;
}

TEST(LargeRelationshipParity, TestPassTopologyMatchesOriginal) {
  LOAD_LARGE_LANE_FIXTURE(f);
  torch::NoGradGuard no_grad;
  const at::Tensor& lane_hs = at_key(f.inter, "test.pts_bbox_head.history_states");
  const at::Tensor& te_hs = at_key(f.inter, "test.bbox_head.history_states");
  RelationshipHead lclc = rel_loaded_head(f, "lclc_head");
  RelationshipHead lcte = rel_loaded_head(f, "lcte_head");
  const at::Tensor lclc_logits = lclc->forward(lane_hs, lane_hs);
  const at::Tensor lcte_logits = lcte->forward(lane_hs, te_hs);
  ASSERT_EQ(lclc_logits.sizes(), (std::vector<int64_t>{1, 20, 20, 1}));
  test::expect_close(lclc_logits.squeeze(-1).sigmoid()[0], at_key(f.outputs, "pred_topology_lclc"),
                     "pred_topology_lclc");
  test::expect_close(lcte_logits.squeeze(-1).sigmoid()[0], at_key(f.outputs, "pred_topology_lcte"),
                     "pred_topology_lcte");
}

TEST(LargeRelationshipParity, LossesEqualOriginal) {
  LOAD_LARGE_LANE_FIXTURE(f);
  const at::Tensor& lane_hs = at_key(f.inter, "train.pts_bbox_head.history_states");
  const at::Tensor& te_hs = at_key(f.inter, "train.bbox_head.history_states");
  const std::vector<AssignResult> lane_assign = {
      test::large_recorded_assignment(f.inter, "pts_bbox_head", 1)};
  const std::vector<AssignResult> te_assign = {
      test::large_recorded_assignment(f.inter, "bbox_head", 1)};
  RelationshipHead lclc = rel_loaded_head(f, "lclc_head");
  RelationshipHead lcte = rel_loaded_head(f, "lcte_head");
  const at::Tensor lclc_loss = lclc->loss(lclc->forward(lane_hs, lane_hs), lane_assign, lane_assign,
                                          {at_key(f.input, "gt_topology_lclc")});
  const at::Tensor lcte_loss = lcte->loss(lcte->forward(lane_hs, te_hs), lane_assign, te_assign,
                                          {at_key(f.input, "gt_topology_lcte")});
  const nlohmann::json& expected = f.losses.at("losses");
  test::expect_loss(lclc_loss, expected.at("lclc_head.loss_rel"), "lclc_head.loss_rel");
  test::expect_loss(lcte_loss, expected.at("lcte_head.loss_rel"), "lcte_head.loss_rel");
}

// `module`'s gradients under the state-dict names of the whole model (`prefix` + name).
void add_gradients(NamedTensors& out, const torch::nn::Module& module, const std::string& prefix) {
  for (auto& [name, grad] : gradient_record(module)) out.emplace_back(prefix + name, grad);
}

// The entries of the original's gradient record of the whole BaselineLarge
// (tests/data/gradients/original_large_one_frame.pt) under one of `prefixes`.
NamedTensors original_large_gradients_of(const std::vector<std::string>& prefixes) {
  NamedTensors out;
  const NamedTensors all =
      tensors_of(read_pth(test::source_dir() / "tests/data/gradients/original_large_one_frame.pt"));
  for (const auto& [key, tensor] : all) {
    for (const std::string& prefix : prefixes) {
      if (key.rfind(prefix, 0) == 0) out.emplace_back(key, tensor);
    }
  }
  return out;
}

// The lane head and both relationship heads receive gradient only from the lane losses and the
// two topology losses (the TE states are an input here), so their gradients are the whole
// model's: each within gradient_parity_tolerance() of the original's record.
TEST(LargeRelationshipParity, LaneAndTopologyGradientsEqualTheOriginalPerTensor) {
  LOAD_LARGE_LANE_FIXTURE(f);
  LcDeformableDetrHead lane(test::large_lc_head_options(f.model_cfg()));
  test::load_module_state(*lane, f.state, "pts_bbox_head.");
  lane->train();
  lane->set_dropout(0.0);
  RelationshipHead lclc = rel_loaded_head(f, "lclc_head");
  RelationshipHead lcte = rel_loaded_head(f, "lcte_head");

  const HeadOutputs out = lane->forward(at_key(f.inter, "train.bev_constructor"));
  const DetrHeadLosses lane_losses =
      lane->loss(out, {at_key(f.input, "gt_lc")}, {at_key(f.input, "gt_lc_labels")}, {});
  const std::vector<AssignResult>& lane_assign = lane_losses.assign_results.back();
  const std::vector<AssignResult> te_assign = {
      test::large_recorded_assignment(f.inter, "bbox_head", 1)};
  at::Tensor total =
      lclc->loss(lclc->forward(out.query_states, out.query_states), lane_assign, lane_assign,
                 {at_key(f.input, "gt_topology_lclc")}) +
      lcte->loss(lcte->forward(out.query_states, at_key(f.inter, "train.bbox_head.history_states")),
                 lane_assign, te_assign, {at_key(f.input, "gt_topology_lcte")});
  for (const auto& [name, value] : lane_losses.losses) total = total + value;
  total.backward();

  NamedTensors ours;
  add_gradients(ours, *lane, "pts_bbox_head.");
  add_gradients(ours, *lclc, "lclc_head.");
  add_gradients(ours, *lcte, "lcte_head.");
  const std::vector<GradientDifference> differences = compare_gradient_records(
      ours, original_large_gradients_of({"pts_bbox_head.", "lclc_head.", "lcte_head."}));
  for (const GradientDifference& d : differences) {
    EXPECT_EQ(d.kind, GradientDifference::Kind::kCompared) << d.name;
    EXPECT_LE(d.relative, test::gradient_parity_tolerance())
        << d.name << "\n"
        << format_gradient_differences(differences);
  }
  EXPECT_EQ(differences.size(), 115u);
}

}  // namespace
}  // namespace olv2
