// TopoNet against the original (tests/data/toponet/, written by scripts/make_toponet_fixtures.sh
// from the original TopoNet): the reduced model's outputs, matchings, 42 loss terms and
// per-parameter gradients of one training step, for one frame and for two frames in one batch,
// and its test pass.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <set>
#include <string>
#include <vector>

#include "olv2/models/gradient_record.h"
#include "olv2/util/pth/pth_file.h"
#include "support/gradient_tolerance.h"
#include "toponet_fixture.h"

namespace olv2::test {
namespace {

// The first lane decoder layer's graph weights see only the all-zero first adjacency.
const std::set<std::string> kTopoNetZeroInTheOriginal = {
    "pts_bbox_head.transformer.decoder.layers.0.ffns.0.lclc_gnn_layer.weight_forward",
    "pts_bbox_head.transformer.decoder.layers.0.ffns.0.lclc_gnn_layer.weight_backward",
    "pts_bbox_head.transformer.decoder.layers.0.ffns.0.lcte_gnn_layer.weight"};

void expect_toponet_gradients_as_original(const NamedTensors& ours, const std::string& golden) {
  const size_t compared =
      expect_gradient_parity(ours, toponet_data(golden), kTopoNetZeroInTheOriginal);
  EXPECT_EQ(compared + kTopoNetZeroInTheOriginal.size(), ours.size());
}

// One training step as train_ds's first (train mode, dropout 0, backward of the summed
// losses) against the `case_` records; `checkpoint`: the stages recomputed in backward.
void expect_training_step_as_original(const std::vector<int64_t>& frames, const std::string& case_,
                                      const std::vector<std::string>& checkpoint = {}) {
  LOAD_TOPONET_SHARED_WEIGHTS(shared);
  const std::shared_ptr<TopoNetImpl> model = toponet_fixture_model(shared, checkpoint);
  model->train();
  model->set_dropout(0.0);
  const Batch batch = toponet_fixture_batch(frames);
  const TopoNetOutputs out = model->forward(batch);
  const DetectorLosses losses = model->losses_of(out, batch);

  const TensorMap recorded = load_tensor_dict(toponet_data(case_ + "_outputs.pt"));
  expect_recorded(out.bev_features, recorded, "bev");
  expect_recorded(out.traffic_elements.cls_scores, recorded, "te.all_cls_scores");
  expect_recorded(out.traffic_elements.reg_preds, recorded, "te.all_bbox_preds");
  expect_recorded(out.traffic_elements.query_states, recorded, "te.history_states");
  expect_recorded(out.lanes.cls_scores, recorded, "lane.all_cls_scores");
  expect_recorded(out.lanes.reg_preds, recorded, "lane.all_lanes_preds");
  expect_recorded(out.lanes.lclc, recorded, "lane.all_lclc_preds");
  expect_recorded(out.lanes.lcte, recorded, "lane.all_lcte_preds");
  expect_recorded(out.lanes.query_states, recorded, "lane.history_states");
  expect_recorded_assignments(losses.traffic_element_assign, recorded, "te");
  expect_recorded_assignments(losses.lane_assign, recorded, "lane");
  expect_losses_as_recorded(losses.losses, toponet_data(case_ + "_losses.json"));

  total_loss(losses.losses).backward();
  expect_toponet_gradients_as_original(gradient_record(*model), case_ + "_gradients.pt");
}

TEST(TopoNetModel, TheWeightFormulaIsTheFixtures) {
  const TensorMap probe = load_tensor_dict(toponet_data("formula_probe.pt"));
  ASSERT_EQ(probe.size(), 5u);
  for (const auto& [key, expected] : probe) {
    const std::string first64 = "@first64";
    if (key.size() > first64.size() &&
        key.compare(key.size() - first64.size(), first64.size(), first64) == 0) {
      const std::string name = key.substr(0, key.size() - first64.size());
      EXPECT_TRUE(torch::equal(formula_tensor(name, {13, 64, 64}, toponet_layer_norm_weights())
                                   .flatten()
                                   .narrow(0, 0, 64),
                               expected))
          << key;
    } else {
      EXPECT_TRUE(torch::equal(formula_tensor(key, expected.sizes(), toponet_layer_norm_weights()),
                               expected))
          << key;
    }
  }
}

TEST(TopoNetModel, OneFrameTrainingStepEqualsTheOriginal) {
  expect_training_step_as_original({0}, "one_frame");
}

TEST(TopoNetModel, BatchOfTwoFramesTrainingStepEqualsTheOriginal) {
  expect_training_step_as_original({}, "batch_two");
}

// Activation checkpointing of the image stage and of each BEV encoder layer recomputes them in
// backward: the same step.
TEST(TopoNetModel, CheckpointedStagesGiveTheOriginalsStep) {
  expect_training_step_as_original({0}, "one_frame", {"extract_feat", "bev_constructor"});
}

TEST(TopoNetModel, TestPassEqualsTheOriginal) {
  LOAD_TOPONET_SHARED_WEIGHTS(shared);
  const std::shared_ptr<TopoNetImpl> model = toponet_fixture_model(shared);
  model->eval();
  const torch::NoGradGuard no_grad;
  Batch batch = toponet_fixture_batch({0});
  // forward_test on a scene's first frame: no previous BEV, so no ego motion.
  batch.can_bus = batch.can_bus.clone();
  batch.can_bus.index_put_({0, torch::indexing::Slice(0, 3)}, 0.0);
  batch.can_bus.index_put_({0, 17}, 0.0);
  const TensorMap recorded = load_tensor_dict(toponet_data("test_outputs.pt"));
  ASSERT_TRUE(torch::equal(batch.can_bus[0], at_key(recorded, "test.can_bus")));
  const TopoNetOutputs out = model->forward(batch);
  const std::vector<FrameTestOutputs> decoded =
      model->decode_outputs(out, batch, /*rescale=*/false);
  ASSERT_EQ(decoded.size(), 1u);
  expect_recorded(out.bev_features, recorded, "test.bev");
  expect_recorded(decoded[0].te.objects.narrow(1, 0, 4), recorded, "test.bbox.boxes");
  expect_recorded(decoded[0].te.scores, recorded, "test.bbox.scores");
  EXPECT_TRUE(torch::equal(decoded[0].te.objects.select(1, 4).to(torch::kLong),
                           at_key(recorded, "test.bbox.labels")));
  expect_recorded(decoded[0].lc.objects, recorded, "test.lane.lanes");
  expect_recorded(decoded[0].lc.scores.squeeze(-1), recorded, "test.lane.scores");
  expect_recorded(decoded[0].lclc, recorded, "test.lclc");
  expect_recorded(decoded[0].lcte, recorded, "test.lcte");
  // Lanes are one class: the original labels every one 0.
  EXPECT_TRUE(torch::equal(at_key(recorded, "test.lane.labels"),
                           torch::zeros({decoded[0].lc.objects.size(0)}, torch::kLong)));
  const std::set<std::string> compared = {"test.can_bus",     "test.bev",         "test.bbox.boxes",
                                          "test.bbox.scores", "test.bbox.labels", "test.lane.lanes",
                                          "test.lane.scores", "test.lane.labels", "test.lclc",
                                          "test.lcte"};
  for (const auto& [key, value] : recorded) {
    EXPECT_TRUE(compared.count(key) == 1) << key << " is recorded but not compared";
  }

  // predict() zeroes the ego motion itself, as forward_test, and sorts by confidence.
  const std::vector<FramePrediction> predicted = model->predict(toponet_fixture_batch({0}));
  ASSERT_EQ(predicted.size(), 1u);
  std::vector<float> confidences;
  for (const LanePrediction& lane : predicted[0].lanes) confidences.push_back(lane.confidence);
  const at::Tensor sorted =
      std::get<0>(at_key(recorded, "test.lane.scores").sort(/*dim=*/0, /*descending=*/true));
  expect_close(torch::tensor(confidences), sorted, "predict: lane confidences");
  ASSERT_EQ(predicted[0].traffic_elements.size(), 20u);
  EXPECT_EQ(predicted[0].topology_lclc.size(), 400u);
}

}  // namespace
}  // namespace olv2::test
