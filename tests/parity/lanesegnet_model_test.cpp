// LaneSegNet against the original (tests/data/lanesegnet/, written by
// scripts/make_lanesegnet_fixtures.sh from the original LaneSegNet): the reduced model's outputs,
// matchings, 31 loss terms and per-parameter gradients of one training step, for one frame and
// for two frames in one batch, with the formula weights and with the original's init_weights()
// where it does not depend on the seed; and its test pass.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "lanesegnet_fixture.h"
#include "olv2/models/gradient_record.h"
#include "olv2/util/pth/pth_file.h"
#include "support/gradient_tolerance.h"
#include "toponet_fixture.h"

namespace olv2::test {
namespace {

// One training step (train mode, dropout 0, backward of the summed losses) of `model` against
// the `case_` records.
void expect_training_step_as_original(LaneSegNetImpl& model, const std::vector<int64_t>& frames,
                                      const std::string& case_) {
  model.train();
  model.set_dropout(0.0);
  // The fixture feeds can_bus as stored.
  const Batch batch = lanesegnet_fixture_batch(frames);
  const LaneSegNetOutputs out = model.forward(batch);
  const DetectorLosses losses = model.losses_of(out, batch);

  const TensorMap recorded = load_tensor_dict(lanesegnet_data(case_ + "_outputs.pt"));
  expect_recorded(out.bev_features.norm(2, -1), recorded, "bev@norm");
  const LaneSegmentOutputs& lanes = out.lanes;
  expect_recorded(lanes.decoder.init_reference, recorded, "lane.init_reference");
  expect_recorded(lanes.decoder.inter_references, recorded, "lane.inter_references");
  for (int64_t l = 0; l < lanes.decoder.attention_references.size(0); ++l) {
    const std::string key = "lane.attention_reference_points." + std::to_string(l);
    expect_recorded(lanes.decoder.attention_references[l], recorded, key);
  }
  expect_recorded(lanes.cls_scores, recorded, "lane.all_cls_scores");
  expect_recorded(lanes.lanes, recorded, "lane.all_lanes_preds");
  expect_recorded(lanes.left_type_scores, recorded, "lane.all_lanes_left_type");
  expect_recorded(lanes.right_type_scores, recorded, "lane.all_lanes_right_type");
  expect_recorded(lanes.query_states, recorded, "lane.history_states");
  expect_recorded(lanes.masks[-1], recorded, "lane.all_mask_preds@last");
  expect_recorded(lanes.masks.to(torch::kDouble).sum({-2, -1}), recorded,
                  "lane.all_mask_preds@sum");
  expect_recorded(lanes.masks.to(torch::kDouble).flatten(-2).norm(2, -1), recorded,
                  "lane.all_mask_preds@norm");
  expect_recorded(out.lsls, recorded, "lclc");
  expect_recorded_assignments(losses.lane_assign, recorded, "lane");
  expect_losses_as_recorded(losses.losses, lanesegnet_data(case_ + "_losses.json"));

  total_loss(losses.losses).backward();
  const NamedTensors gradients = gradient_record(model);
  EXPECT_EQ(expect_gradient_parity(gradients, lanesegnet_data(case_ + "_gradients.pt"), {}),
            gradients.size());
}

TEST(LaneSegNetModel, TheWeightFormulaIsTheFixtures) {
  const TensorMap probe = load_tensor_dict(lanesegnet_data("formula_probe.pt"));
  ASSERT_EQ(probe.size(), 6u);
  // Large entries keep their first 64 values (`<name>@first64`).
  const std::map<std::string, std::vector<int64_t>> large = {
      {"pts_bbox_head.transformer.decoder.layers.0.attentions.1.sampling_offsets.weight",
       {512, 64}},
      {"lclc_head.classifier.layers.0.weight", {256, 256}}};
  for (const auto& [key, expected] : probe) {
    const size_t at = key.find("@first64");
    const std::string name = key.substr(0, at);
    const at::Tensor ours =
        at == std::string::npos
            ? formula_tensor(name, expected.sizes(), lanesegnet_layer_norm_weights())
            : formula_tensor(name, large.at(name), lanesegnet_layer_norm_weights())
                  .flatten()
                  .narrow(0, 0, 64);
    EXPECT_TRUE(torch::equal(ours, expected)) << key;
  }
}

TEST(LaneSegNetModel, OneFrameTrainingStepEqualsTheOriginal) {
  LOAD_TOPONET_SHARED_WEIGHTS(shared);
  expect_training_step_as_original(*lanesegnet_fixture_model(shared), {0}, "one_frame");
}

TEST(LaneSegNetModel, BatchOfTwoFramesTrainingStepEqualsTheOriginal) {
  LOAD_TOPONET_SHARED_WEIGHTS(shared);
  expect_training_step_as_original(*lanesegnet_fixture_model(shared), {}, "batch_two");
}

// Activation checkpointing of the image stage and of each BEV encoder layer: the same step.
TEST(LaneSegNetModel, CheckpointedStagesGiveTheOriginalsStep) {
  LOAD_TOPONET_SHARED_WEIGHTS(shared);
  expect_training_step_as_original(
      *lanesegnet_fixture_model(shared, {"extract_feat", "bev_constructor"}), {0}, "one_frame");
}

// Our initialisation gives every entry the original's init_weights() sets independently of the
// seed, to the value; with the formula for the seeded ones, the step equals the original's.
TEST(LaneSegNetModel, InitWeightsStepEqualsTheOriginal) {
  LOAD_TOPONET_SHARED_WEIGHTS(shared);
  std::ifstream file(lanesegnet_data("init_weights.json"));
  const nlohmann::json init = nlohmann::json::parse(file);
  auto model = std::make_shared<LaneSegNetImpl>(lanesegnet_fixture_options());
  NamedTensors state;
  std::set<std::string> random;
  for (const auto& name : init.at("random")) random.insert(name.get<std::string>());
  const nlohmann::json& deterministic = init.at("deterministic");
  size_t checked = 0;
  for (const auto& [name, tensor] : module_state_dict(*model)) {
    const std::string part = name.substr(0, name.find('.'));
    if (part == "img_backbone" || part == "img_neck" || part == "bev_constructor") continue;
    if (random.count(name) == 1) {
      state.emplace_back(name,
                         formula_tensor(name, tensor.sizes(), lanesegnet_layer_norm_weights()));
      continue;
    }
    ASSERT_TRUE(deterministic.contains(name)) << name << " is in neither list";
    const nlohmann::json& entry = deterministic.at(name);
    const at::Tensor values = tensor.to(torch::kDouble);
    EXPECT_EQ(tensor.sizes().vec(), entry.at("shape").get<std::vector<int64_t>>()) << name;
    EXPECT_NEAR(values.sum().item<double>(), entry.at("sum").get<double>(), 1e-9) << name;
    EXPECT_NEAR(values.pow(2).sum().item<double>(), entry.at("sum_of_squares").get<double>(), 1e-9)
        << name;
    const std::vector<double> first = entry.at("first").get<std::vector<double>>();
    const at::Tensor ours = values.flatten().narrow(0, 0, static_cast<int64_t>(first.size()));
    EXPECT_TRUE(torch::equal(ours, torch::tensor(first, torch::kDouble))) << name;
    ++checked;
  }
  EXPECT_EQ(checked, deterministic.size());
  for (const auto& [name, tensor] : shared) {
    const std::string part = name.substr(0, name.find('.'));
    if (part == "img_backbone" || part == "img_neck" || part == "bev_constructor") {
      state.emplace_back(name, tensor);
    }
  }
  LoadStateDictOptions options;
  options.strict = false;
  load_state_dict(*model, state, options);
  expect_training_step_as_original(*model, {0}, "init_one_frame");
}

TEST(LaneSegNetModel, TestPassEqualsTheOriginal) {
  LOAD_TOPONET_SHARED_WEIGHTS(shared);
  const std::shared_ptr<LaneSegNetImpl> model = lanesegnet_fixture_model(shared);
  model->eval();
  const torch::NoGradGuard no_grad;
  // forward_test on a scene's first frame: no previous BEV, so no ego motion.
  const Batch batch = model->as_the_original_sees(lanesegnet_fixture_batch({0}));
  const TensorMap recorded = load_tensor_dict(lanesegnet_data("test_outputs.pt"));
  ASSERT_TRUE(torch::equal(batch.can_bus[0], at_key(recorded, "test.can_bus")));
  const LaneSegNetOutputs out = model->forward(batch);
  EXPECT_FALSE(out.lanes.masks.defined());  // as the original without pred_mask
  expect_recorded(out.bev_features.norm(2, -1), recorded, "test.bev@norm");
  expect_recorded(out.lanes.cls_scores, recorded, "test.all_cls_scores");
  expect_recorded(out.lanes.query_states, recorded, "test.history_states");
  expect_recorded(out.lanes.decoder.inter_references, recorded, "test.inter_references");
  expect_recorded(out.lsls, recorded, "test.lclc");
  const std::vector<FrameTestOutputs> decoded = model->decode_outputs(out, batch, false);
  ASSERT_EQ(decoded.size(), 1u);
  expect_recorded(decoded[0].lc.objects, recorded, "test.lane.lanes");
  const auto [scores, labels] = decoded[0].lc.scores.max(-1);
  expect_recorded(scores, recorded, "test.lane.scores");
  EXPECT_TRUE(torch::equal(labels, at_key(recorded, "test.lane.labels")));
  const LaneSegmentDetections detections = model->lane_head().decode(out.lanes, 0);
  const auto [left, left_labels] = detections.left_type_scores.max(-1);
  const auto [right, right_labels] = detections.right_type_scores.max(-1);
  expect_recorded(left, recorded, "test.lane.left_type_scores");
  expect_recorded(right, recorded, "test.lane.right_type_scores");
  EXPECT_TRUE(torch::equal(left_labels, at_key(recorded, "test.lane.left_type_labels")));
  EXPECT_TRUE(torch::equal(right_labels, at_key(recorded, "test.lane.right_type_labels")));
  expect_recorded(decoded[0].lclc, recorded, "test.lsls");
}

}  // namespace
}  // namespace olv2::test
