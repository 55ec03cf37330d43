// The whole Baseline against the original: losses, gradients, matching, BatchNorm statistics
// after a training step, head outputs and decoded test outputs.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <fstream>
#include <set>

#include "model_fixture.h"
#include "support/test_paths.h"

namespace olv2::test {
namespace {

class ModelLosses : public ::testing::Test {
 protected:
  void SetUp() override {
    OLV2_REQUIRE_FIXTURE(json_path, "baseline_losses.json");
    fixture_ = read_model_fixture(json_path);
    batch_ = fixture_batch(fixture_.input, /*with_gt=*/true);
  }

  // A training step as the fixture ran it: train mode, dropout 0, backward of the total loss.
  DetectorLosses train_step(BaselineImpl& model) {
    model.train();
    model.set_dropout(0.0);
    model.zero_grad();
    DetectorLosses out = model.losses_of(model.forward(batch_), batch_);
    total_loss(out.losses).backward();
    return out;
  }

  ModelFixture fixture_;
  Batch batch_;
};

TEST_F(ModelLosses, LossesGradientsAndMatchingEqualTheOriginal) {
  auto model = fixture_model(fixture_.losses, fixture_.state);
  const DetectorLosses out = train_step(*model);

  expect_losses_as_recorded(out.losses, fixture_.dir / "baseline_losses.json");
  expect_assignments_as_recorded(out.lane_assign, fixture_.intermediates, "lc_head");
  expect_assignments_as_recorded(out.traffic_element_assign, fixture_.intermediates, "te_head");
  EXPECT_GT(expect_gradients_as_recorded(*model, fixture_.losses), 0);

  // Running statistics after forward and the checkpointed recomputation in backward.
  const std::string prefix = "train.bn_running_after_forward.";
  int checked = 0;
  for (const auto& [key, reference] : fixture_.intermediates) {
    if (key.rfind(prefix, 0) != 0) continue;
    const std::string name = key.substr(prefix.size());
    bool found = false;
    for (const auto& item : model->named_buffers()) {
      if (item.key() == name) {
        expect_close(item.value(), reference, name);
        found = true;
      }
    }
    EXPECT_TRUE(found) << name;
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

TEST_F(ModelLosses, CheckpointedStagesGiveTheSameGradients) {
  auto plain = fixture_model(fixture_.losses, fixture_.state);
  train_step(*plain);
  BaselineOptions options = fixture_model_options(fixture_.losses);
  options.checkpoint = kBaselineCheckpointableStages;
  auto checkpointed = std::make_shared<BaselineImpl>(options);
  load_state_dict(*checkpointed, fixture_.state);
  train_step(*checkpointed);
  const auto ours = checkpointed->named_parameters();
  for (const auto& item : plain->named_parameters()) {
    const at::Tensor& a = item.value().grad();
    const at::Tensor& b = ours[item.key()].grad();
    ASSERT_EQ(a.defined(), b.defined()) << item.key();
    if (a.defined()) {
      EXPECT_TRUE(torch::allclose(a, b, 1e-5, 1e-7)) << item.key();
    }
  }
}

TEST_F(ModelLosses, TrainPassHeadOutputsEqualTheOriginal) {
  auto model = fixture_model(fixture_.losses, fixture_.state);
  model->train();
  model->set_dropout(0.0);
  torch::NoGradGuard no_grad;
  const DetectorOutputs out = model->forward(batch_);
  const TensorMap& f = fixture_.intermediates;
  expect_summaries_close(out.bev_features, f, "train.img_view_transformer");
  expect_close(out.lanes.cls_scores, at_key(f, "train.lc_head.0.0"), "lc cls");
  expect_close(out.lanes.reg_preds, at_key(f, "train.lc_head.1.0"), "lc reg");
  expect_close(out.lanes.query_states, at_key(f, "train.lc_head.2.0"), "lc dec");
  expect_close(out.traffic_elements.cls_scores, at_key(f, "train.te_head.0.0"), "te cls");
  expect_close(out.traffic_elements.reg_preds, at_key(f, "train.te_head.1.0"), "te reg");
  expect_close(out.lclc.select(0, out.lclc.size(0) - 1), at_key(f, "train.lclc_head.0"), "lclc");
  expect_close(out.lcte.select(0, out.lcte.size(0) - 1), at_key(f, "train.lcte_head.0"), "lcte");
}

TEST_F(ModelLosses, TestOutputsEqualTheOriginal) {
  auto model = fixture_model(fixture_.losses, fixture_.state);
  model->eval();
  torch::NoGradGuard no_grad;
  const std::vector<FrameTestOutputs> outputs =
      model->decode_outputs(model->forward(batch_), batch_, /*rescale=*/true);
  ASSERT_EQ(outputs.size(), 1u);
  const TensorMap& expected = fixture_.outputs;
  expect_recorded(outputs[0].lc.objects, expected, "pred_lc.lanes");
  expect_recorded(outputs[0].lc.scores, expected, "pred_lc.scores");
  expect_recorded(outputs[0].te.objects, expected, "pred_te.bboxes_labels");
  expect_recorded(outputs[0].te.scores, expected, "pred_te.scores");
  expect_recorded(outputs[0].lclc, expected, "pred_topology_lclc");
  expect_recorded(outputs[0].lcte, expected, "pred_topology_lcte");

  // predict(): the same numbers as polylines sampled from the control points.
  const std::vector<FramePrediction> predictions = model->predict(batch_);
  ASSERT_EQ(predictions.size(), 1u);
  const at::Tensor lanes = at_key(expected, "pred_lc.lanes");
  ASSERT_EQ(predictions[0].lanes.size(), static_cast<size_t>(lanes.size(0)));
  const at::Tensor control = lanes.view({lanes.size(0), -1, 3});
  for (int64_t q = 0; q < lanes.size(0); ++q) {
    const auto& points = predictions[0].lanes[static_cast<size_t>(q)].points;
    ASSERT_EQ(points.size(), 11u);
    // The curve starts at the first control point and ends at the last one.
    for (int64_t axis = 0; axis < 3; ++axis) {
      EXPECT_NEAR(points.front()[axis], control[q][0][axis].item<float>(), 1e-3);
      EXPECT_NEAR(points.back()[axis], control[q][-1][axis].item<float>(), 1e-3);
    }
  }
  ASSERT_EQ(predictions[0].traffic_elements.size(),
            static_cast<size_t>(at_key(expected, "pred_te.scores").size(0)));
}

}  // namespace
}  // namespace olv2::test
