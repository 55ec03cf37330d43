// Gradients of the traffic-element head and both topology heads against the original's
// Σ|grad| per parameter. Those parameters only see the TE losses and the topology losses, whose
// inputs the fixture records in full (the front-camera FPN feature and the lane decoder
// features), so they can be checked without the rest of the model.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "heads_fixture.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

using test::at_key;

// README tolerance for gradient sums: rtol 1e-3 above 1e-3; entries below 1e-4 are
// thread-order noise.
void expect_grad_sum(const at::Tensor& grad, double reference, const std::string& name) {
  if (reference < 1e-4) return;
  const double actual = grad.defined() ? grad.abs().sum().item<double>() : 0.0;
  EXPECT_NEAR(actual, reference, 1e-3 * reference + (reference < 1e-3 ? 1e-4 : 0.0)) << name;
}

TEST(HeadGradientParity, TeAndTopologyHeadGradientsEqualOriginal) {
  OLV2_REQUIRE_FIXTURE(intermediates, "baseline_intermediates.pt");
  const std::filesystem::path dir = intermediates.parent_path();
  const test::TensorMap state = test::load_tensor_dict(dir / "baseline_state_dict.pt");
  const test::TensorMap inter = test::load_tensor_dict(intermediates);
  const test::TensorMap input = test::load_tensor_dict(dir / "baseline_input.pt");
  const nlohmann::json fixture = test::load_json(dir / "baseline_losses.json");
  const nlohmann::json& cfg = fixture.at("model_cfg");

  CustomDetrHead lc_head(test::detr_head_options(cfg.at("lc_head")));
  CustomDetrHead te_head(test::detr_head_options(cfg.at("te_head")));
  TopologyHead lclc_head(test::topology_head_options(cfg.at("lclc_head")));
  TopologyHead lcte_head(test::topology_head_options(cfg.at("lcte_head")));
  test::load_module_state(*lc_head, state, "lc_head.");
  test::load_module_state(*te_head, state, "te_head.");
  test::load_module_state(*lclc_head, state, "lclc_head.");
  test::load_module_state(*lcte_head, state, "lcte_head.");
  te_head->train();
  te_head->set_dropout(0.0);

  DetrImageGeometry geometry;
  const at::Tensor pad = at_key(input, "pad_shape");
  const at::Tensor img = at_key(input, "img_shape");
  geometry.batch_input_shape = {pad[0][0][0].item<int64_t>(), pad[0][0][1].item<int64_t>()};
  geometry.img_shapes.emplace_back(img[0][0][0].item<int64_t>(), img[0][0][1].item<int64_t>());
  const at::Tensor neck = at_key(inter, "train.img_neck");
  const int64_t num_cams = at_key(input, "img").size(1);
  const at::Tensor front =
      neck.view({-1, num_cams, neck.size(1), neck.size(2), neck.size(3)}).select(1, 0);

  const HeadOutputs te = te_head->forward(front, geometry);
  const DetrHeadLosses te_losses =
      te_head->loss(te, {at_key(input, "gt_te")}, {at_key(input, "gt_te_labels")}, geometry);
  // The lane head's train-pass outputs, as recorded, give its assignment and decoder features.
  HeadOutputs lc;
  lc.cls_scores = at_key(inter, "train.lc_head.0.0");
  lc.reg_preds = at_key(inter, "train.lc_head.1.0");
  const std::vector<AssignResult> lc_assign =
      lc_head->loss(lc, {at_key(input, "gt_lc")}, {at_key(input, "gt_lc_labels")}, {})
          .assign_results.back();
  const at::Tensor lc_dec = at_key(inter, "train.lc_head.2.0");

  at::Tensor total =
      lclc_head->loss(lclc_head->forward(lc_dec, lc_dec), lc_assign, lc_assign,
                      {at_key(input, "gt_topology_lclc")}) +
      lcte_head->loss(lcte_head->forward(lc_dec, te.query_states), lc_assign,
                      te_losses.assign_results.back(), {at_key(input, "gt_topology_lcte")});
  for (const auto& [name, value] : te_losses.losses) total = total + value;
  total.backward();

  const nlohmann::json& sums = fixture.at("grad_abs_sum_all");
  size_t checked = 0;
  for (const auto& [prefix, head] :
       std::vector<std::pair<std::string, torch::nn::Module*>>{{"te_head.", te_head.get()},
                                                               {"lclc_head.", lclc_head.get()},
                                                               {"lcte_head.", lcte_head.get()}}) {
    for (const auto& item : head->named_parameters()) {
      const std::string name = prefix + item.key();
      ASSERT_TRUE(sums.contains(name)) << name;
      expect_grad_sum(item.value().grad(), sums.at(name).get<double>(), name);
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u);
}

}  // namespace
}  // namespace olv2
