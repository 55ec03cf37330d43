// The two TopologyHeads against the original's recorded tensors: forward from the recorded
// decoder features (train and test pass) and the topology losses from the recorded train-pass
// probabilities and assignments.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "heads_fixture.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

using test::at_key;

struct TopologyFixture {
  test::TensorMap state, inter, input, outputs;
  nlohmann::json losses;
  TopologyHead lclc{nullptr};
  TopologyHead lcte{nullptr};

  void load(const std::filesystem::path& dir) {
    state = test::load_tensor_dict(dir / "baseline_state_dict.pt");
    inter = test::load_tensor_dict(dir / "baseline_intermediates.pt");
    input = test::load_tensor_dict(dir / "baseline_input.pt");
    outputs = test::load_tensor_dict(dir / "baseline_outputs.pt");
    losses = test::load_json(dir / "baseline_losses.json");
    const nlohmann::json& cfg = losses.at("model_cfg");
    lclc = TopologyHead(test::topology_head_options(cfg.at("lclc_head")));
    lcte = TopologyHead(test::topology_head_options(cfg.at("lcte_head")));
    test::load_module_state(*lclc, state, "lclc_head.");
    test::load_module_state(*lcte, state, "lcte_head.");
  }

  // The original's recorded assignment of `head` (sample 0, the only decoder layer).
  AssignResult recorded_assignment(const std::string& head) const {
    const std::string prefix = "train." + head + ".assign_result.0.";
    AssignResult result;
    result.pos_inds = at_key(inter, prefix + "pos_inds.0");
    result.neg_inds = at_key(inter, prefix + "neg_inds.0");
    result.pos_assigned_gt_inds = at_key(inter, prefix + "pos_assigned_gt_inds.0");
    return result;
  }
};

TEST(TopologyHeadParity, ForwardMatchesBothPasses) {
  LOAD_HEAD_FIXTURE(TopologyFixture, f);
  torch::NoGradGuard no_grad;
  for (const std::string pass : {"train", "test"}) {
    const at::Tensor lanes = at_key(f.inter, pass + ".lc_head.2.0");
    const at::Tensor elements = at_key(f.inter, pass + ".te_head.2.0");
    // One decoder layer: the heads' outputs are [L, B, R, C, 1].
    test::expect_close(f.lclc->forward(lanes, lanes)[-1], at_key(f.inter, pass + ".lclc_head.0"),
                       pass + ".lclc_head.0");
    test::expect_close(f.lcte->forward(lanes, elements)[-1], at_key(f.inter, pass + ".lcte_head.0"),
                       pass + ".lcte_head.0");
  }
  const at::Tensor lanes = at_key(f.inter, "test.lc_head.2.0");
  test::expect_close(f.lclc->forward(lanes, lanes)[-1][0].squeeze(-1),
                     at_key(f.outputs, "pred_topology_lclc"), "pred_topology_lclc");
}

TEST(TopologyHeadParity, LossesEqualOriginal) {
  LOAD_HEAD_FIXTURE(TopologyFixture, f);
  const AssignResult lanes = f.recorded_assignment("lc_head");
  const AssignResult elements = f.recorded_assignment("te_head");
  const at::Tensor lclc = at_key(f.inter, "train.lclc_head.0").unsqueeze(0);
  const at::Tensor lcte = at_key(f.inter, "train.lcte_head.0").unsqueeze(0);
  const nlohmann::json& expected = f.losses.at("losses");
  test::expect_loss(f.lclc->loss(lclc, {lanes}, {lanes}, {at_key(f.input, "gt_topology_lclc")}),
                    expected.at("topology_lclc_loss_cls").get<double>(), "topology_lclc_loss_cls");
  test::expect_loss(f.lcte->loss(lcte, {lanes}, {elements}, {at_key(f.input, "gt_topology_lcte")}),
                    expected.at("topology_lcte_loss_cls").get<double>(), "topology_lcte_loss_cls");
}

TEST(TopologyHeadParity, LossGradientFlowsIntoBothEmbeddings) {
  LOAD_HEAD_FIXTURE(TopologyFixture, f);
  const at::Tensor lanes = at_key(f.inter, "train.lc_head.2.0").clone().requires_grad_(true);
  const at::Tensor elements = at_key(f.inter, "train.te_head.2.0").clone().requires_grad_(true);
  const at::Tensor loss =
      f.lcte->loss(f.lcte->forward(lanes, elements), {f.recorded_assignment("lc_head")},
                   {f.recorded_assignment("te_head")}, {at_key(f.input, "gt_topology_lcte")});
  loss.backward();
  EXPECT_GT(lanes.grad().abs().sum().item<double>(), 0.0);
  EXPECT_GT(elements.grad().abs().sum().item<double>(), 0.0);
}

}  // namespace
}  // namespace olv2
