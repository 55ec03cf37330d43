// The traffic-element head (CustomDETRHead, object_type bbox) against the original's recorded
// tensors: forward from the recorded front-camera FPN feature (train and test pass), Hungarian
// assignment and losses from the recorded train-pass outputs, and decoding.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "heads_fixture.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

using test::at_key;

struct TeFixture {
  test::TensorMap state, inter, input, outputs;
  nlohmann::json losses;
  CustomDetrHead head{nullptr};
  DetrImageGeometry geometry;

  void load(const std::filesystem::path& dir) {
    state = test::load_tensor_dict(dir / "baseline_state_dict.pt");
    inter = test::load_tensor_dict(dir / "baseline_intermediates.pt");
    input = test::load_tensor_dict(dir / "baseline_input.pt");
    outputs = test::load_tensor_dict(dir / "baseline_outputs.pt");
    losses = test::load_json(dir / "baseline_losses.json");
    head = CustomDetrHead(test::detr_head_options(losses.at("model_cfg").at("te_head")));
    test::load_module_state(*head, state, "te_head.");
    // The detector hands the TE head camera 0's padded and un-padded image size.
    const at::Tensor pad = at_key(input, "pad_shape");
    const at::Tensor img = at_key(input, "img_shape");
    geometry.batch_input_shape = {pad[0][0][0].item<int64_t>(), pad[0][0][1].item<int64_t>()};
    for (int64_t b = 0; b < img.size(0); ++b) {
      geometry.img_shapes.emplace_back(img[b][0][0].item<int64_t>(), img[b][0][1].item<int64_t>());
    }
  }

  // Camera 0 of each sample from the FPN output [B * N_cam, C, H, W] (sample-major).
  at::Tensor front_feature(const std::string& pass) const {
    const at::Tensor neck = at_key(inter, pass + ".img_neck");
    const int64_t num_cams = at_key(input, "img").size(1);
    return neck.view({-1, num_cams, neck.size(1), neck.size(2), neck.size(3)}).select(1, 0);
  }

  HeadOutputs train_outputs() const { return test::recorded_train_outputs(inter, "te_head"); }
};

void expect_forward_matches(TeFixture& f, const std::string& pass) {
  const HeadOutputs out = f.head->forward(f.front_feature(pass), f.geometry);
  const std::string key = pass + ".te_head.";
  test::expect_close(out.cls_scores, at_key(f.inter, key + "0.0"), key + "0.0");
  test::expect_close(out.reg_preds, at_key(f.inter, key + "1.0"), key + "1.0");
  test::expect_close(out.query_states, at_key(f.inter, key + "2.0"), key + "2.0");
  test::expect_close(out.query_states, at_key(f.inter, key + "transformer.0"),
                     key + "transformer.0");
  test::expect_close(out.intermediates.at("memory"), at_key(f.inter, key + "transformer.1"),
                     key + "transformer.1");
}

TEST(TeHeadParity, ForwardMatchesTrainPassWithoutDropout) {
  LOAD_HEAD_FIXTURE(TeFixture, f);
  torch::NoGradGuard no_grad;
  f.head->train();
  f.head->set_dropout(0.0);
  expect_forward_matches(f, "train");
}

TEST(TeHeadParity, ForwardAndDecodingMatchTestPass) {
  LOAD_HEAD_FIXTURE(TeFixture, f);
  torch::NoGradGuard no_grad;
  f.head->eval();
  expect_forward_matches(f, "test");
  const HeadOutputs out = f.head->forward(f.front_feature("test"), f.geometry);
  const at::Tensor scale = at_key(f.input, "scale_factor")[0].to(torch::kDouble).contiguous();
  const std::vector<double> scale_factor(scale.data_ptr<double>(),
                                         scale.data_ptr<double>() + scale.numel());
  const Detections boxes = f.head->decode_boxes(out.cls_scores[-1][0], out.reg_preds[-1][0],
                                                f.geometry.img_shapes[0], scale_factor);
  test::expect_close(boxes.objects, at_key(f.outputs, "pred_te.bboxes_labels"),
                     "pred_te.bboxes_labels");
  test::expect_close(boxes.scores, at_key(f.outputs, "pred_te.scores"), "pred_te.scores");
}

TEST(TeHeadParity, AssignmentEqualsOriginal) {
  LOAD_HEAD_FIXTURE(TeFixture, f);
  const HeadOutputs out = f.train_outputs();
  const AssignResult result =
      f.head->assign(out.cls_scores[-1][0], out.reg_preds[-1][0], at_key(f.input, "gt_te"),
                     at_key(f.input, "gt_te_labels"), f.geometry.img_shapes[0]);
  const std::string prefix = "train.te_head.assign_result.0.";
  EXPECT_TRUE(torch::equal(result.pos_inds, at_key(f.inter, prefix + "pos_inds.0")));
  EXPECT_TRUE(torch::equal(result.neg_inds, at_key(f.inter, prefix + "neg_inds.0")));
  EXPECT_TRUE(torch::equal(result.pos_assigned_gt_inds,
                           at_key(f.inter, prefix + "pos_assigned_gt_inds.0")));
}

TEST(TeHeadParity, LossesEqualOriginal) {
  LOAD_HEAD_FIXTURE(TeFixture, f);
  const DetrHeadLosses losses = f.head->loss(f.train_outputs(), {at_key(f.input, "gt_te")},
                                             {at_key(f.input, "gt_te_labels")}, f.geometry);
  const nlohmann::json& expected = f.losses.at("losses");
  ASSERT_EQ(losses.losses.size(), 3u);
  for (const auto& [name, value] : losses.losses) {
    test::expect_loss(value, expected.at("te_" + name).get<double>(), "te_" + name);
  }
  ASSERT_EQ(losses.assign_results.size(), 1u);
  EXPECT_TRUE(torch::equal(losses.assign_results[0][0].pos_inds,
                           at_key(f.inter, "train.te_head.assign_result.0.pos_inds.0")));
}

}  // namespace
}  // namespace olv2
