// LaneSegNet's Map Element Bucket against the original (tests/data/lanesegnet_mapele_bucket/,
// written by scripts/make_lanesegnet_fixtures.sh --model mapele_bucket from the original
// LaneSegNet): the reduced model's outputs, the matchings of its three heads (MapTR's point sets
// with the order each was matched in), 68 loss terms and per-parameter gradients of one training
// step, for one frame and for two frames in one batch; and its test pass.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <map>
#include <string>
#include <vector>

#include "map_element_bucket_fixture.h"
#include "olv2/models/gradient_record.h"
#include "olv2/models/heads/maptr_head.h"
#include "support/gradient_tolerance.h"
#include "toponet_fixture.h"

namespace olv2::test {
namespace {

// MapTR's matchings: the recorded queries, GTs and the order of each GT they were matched in.
void expect_bucket_area_matchings(const std::vector<std::vector<AssignResult>>& layers,
                                  const TensorMap& recorded) {
  ASSERT_EQ(layers.size(), 6u) << "decoder layers";
  for (size_t l = 0; l < layers.size(); ++l) {
    for (size_t b = 0; b < layers[l].size(); ++b) {
      const std::string key = "assign.area." + std::to_string(l) + "." + std::to_string(b);
      const AssignResult& ours = layers[l][b];
      EXPECT_TRUE(torch::equal(ours.pos_inds, at_key(recorded, key + ".pos_inds"))) << key;
      EXPECT_TRUE(
          torch::equal(ours.pos_assigned_gt_inds, at_key(recorded, key + ".pos_assigned_gt_inds")))
          << key;
      EXPECT_TRUE(torch::equal(ours.pos_assigned_orders, at_key(recorded, key + ".assigned_shift")))
          << key;
    }
  }
}

// One training step (train mode, dropout 0, backward of the summed losses) against the `case_`
// records.
void expect_bucket_step_as_original(const std::vector<int64_t>& frames, const std::string& case_) {
  LOAD_TOPONET_SHARED_WEIGHTS(shared);
  const std::shared_ptr<LaneSegNetMapElementBucketImpl> model = bucket_fixture_model(shared);
  model->train();
  model->set_dropout(0.0);
  // The fixture feeds can_bus as stored.
  const Batch batch = bucket_fixture_batch(frames);
  const LaneSegNetMapElementBucketOutputs out = model->forward(batch);
  const DetectorLosses losses = model->losses_of(out, batch);

  const TensorMap recorded = load_tensor_dict(bucket_data(case_ + "_outputs.pt"));
  expect_recorded(out.bev_features.norm(2, -1), recorded, "bev@norm");
  expect_recorded(out.lanes.cls_scores, recorded, "lane.all_cls_scores");
  expect_recorded(out.lanes.lanes, recorded, "lane.all_lanes_preds");
  expect_recorded(out.lanes.query_states, recorded, "lane.history_states");
  expect_recorded(out.lanes.masks[-1], recorded, "lane.all_mask_preds@last");
  expect_recorded(out.lsls, recorded, "lsls");
  expect_recorded(out.traffic_elements.cls_scores, recorded, "te.all_cls_scores");
  expect_recorded(out.traffic_elements.reg_preds, recorded, "te.all_bbox_preds");
  expect_recorded(out.traffic_elements.query_states, recorded, "te.history_states");
  expect_recorded(out.lste, recorded, "lste");
  const MapTrOutputs& areas = out.areas;
  expect_recorded(areas.decoder.inter_states, recorded, "area.hs");
  expect_recorded(areas.decoder.init_reference, recorded, "area.init_reference");
  expect_recorded(areas.decoder.inter_references, recorded, "area.inter_references");
  expect_recorded(areas.cls_scores, recorded, "area.all_cls_scores");
  expect_recorded(areas.points, recorded, "area.all_pts_preds");
  for (int64_t b = 0; b < batch.size(); ++b) {
    const std::string key = "area.gt_shifts_pts." + std::to_string(b);
    EXPECT_TRUE(torch::equal(point_set_orders(batch.gt_areas[static_cast<size_t>(b)]),
                             at_key(recorded, key)))
        << key;
  }
  expect_recorded_assignments(losses.lane_assign, recorded, "lane");
  expect_recorded_assignments(losses.traffic_element_assign, recorded, "te");
  expect_bucket_area_matchings(losses.area_assign, recorded);
  expect_losses_as_recorded(losses.losses, bucket_data(case_ + "_losses.json"));

  total_loss(losses.losses).backward();
  const NamedTensors gradients = gradient_record(*model);
  EXPECT_EQ(expect_gradient_parity(gradients, bucket_data(case_ + "_gradients.pt"), {}),
            gradients.size());
}

TEST(MapElementBucketModel, TheWeightFormulaIsTheFixtures) {
  const TensorMap probe = load_tensor_dict(bucket_data("formula_probe.pt"));
  ASSERT_FALSE(probe.empty());
  // Large entries keep their first 64 values (`<name>@first64`).
  const std::map<std::string, std::vector<int64_t>> large = {
      {"lste_head.classifier.layers.0.weight", {256, 256}},
      {"area_head.transformer.decoder.layers.0.attentions.0.attn.in_proj_weight", {192, 64}}};
  for (const auto& [key, expected] : probe) {
    const size_t at = key.find("@first64");
    const std::string name = key.substr(0, at);
    const at::Tensor ours =
        at == std::string::npos
            ? formula_tensor(name, expected.sizes(), bucket_layer_norm_weights())
            : formula_tensor(name, large.at(name), bucket_layer_norm_weights())
                  .flatten()
                  .narrow(0, 0, 64);
    EXPECT_TRUE(torch::equal(ours, expected)) << key;
  }
}

TEST(MapElementBucketModel, OneFrameTrainingStepEqualsTheOriginal) {
  expect_bucket_step_as_original({0}, "one_frame");
}

TEST(MapElementBucketModel, BatchOfTwoFramesTrainingStepEqualsTheOriginal) {
  expect_bucket_step_as_original({}, "batch_two");
}

TEST(MapElementBucketModel, TestPassEqualsTheOriginal) {
  LOAD_TOPONET_SHARED_WEIGHTS(shared);
  const std::shared_ptr<LaneSegNetMapElementBucketImpl> model = bucket_fixture_model(shared);
  model->eval();
  const torch::NoGradGuard no_grad;
  // forward_test on a scene's first frame: no previous BEV, so no ego motion.
  const Batch batch = model->as_the_original_sees(bucket_fixture_batch({0}));
  const TensorMap recorded = load_tensor_dict(bucket_data("test_outputs.pt"));
  ASSERT_TRUE(torch::equal(batch.can_bus[0], at_key(recorded, "test.can_bus")));
  const LaneSegNetMapElementBucketOutputs out = model->forward(batch);
  expect_recorded(out.bev_features.norm(2, -1), recorded, "test.bev@norm");
  expect_recorded(out.lanes.cls_scores, recorded, "test.all_cls_scores");
  expect_recorded(out.lanes.query_states, recorded, "test.history_states");
  expect_recorded(out.lanes.decoder.inter_references, recorded, "test.inter_references");
  expect_recorded(out.lsls, recorded, "test.lsls_logits");
  expect_recorded(out.lste, recorded, "test.lste_logits");
  const std::vector<FrameTestOutputs> decoded = model->decode_outputs(out, batch, false);
  ASSERT_EQ(decoded.size(), 1u);
  const FrameTestOutputs& r = decoded[0];
  expect_recorded(r.lc.objects, recorded, "test.lane.lanes");
  const auto [scores, labels] = r.lc.scores.max(-1);
  expect_recorded(scores, recorded, "test.lane.scores");
  EXPECT_TRUE(torch::equal(labels, at_key(recorded, "test.lane.labels")));
  expect_recorded(r.lclc, recorded, "test.lsls");
  // The boxes with the front crop's offset added back, their best class and its probability.
  expect_recorded(r.te.objects.narrow(1, 0, 4), recorded, "test.bbox.boxes");
  expect_recorded(r.te.scores, recorded, "test.bbox.scores");
  EXPECT_TRUE(torch::equal(r.te.objects.select(1, 4).to(torch::kLong),
                           at_key(recorded, "test.bbox.labels")));
  expect_recorded(r.lcte, recorded, "test.lste");
  // AreaPseudoCoder: the last layer's points, each instance's best class and its probability.
  expect_recorded(r.areas.objects, recorded, "test.area.pts");
  const auto [area_scores, area_labels] = r.areas.scores.max(-1);
  expect_recorded(area_scores, recorded, "test.area.scores");
  EXPECT_TRUE(torch::equal(area_labels, at_key(recorded, "test.area.labels")));
}

}  // namespace
}  // namespace olv2::test
