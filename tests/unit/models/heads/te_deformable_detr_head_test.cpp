// TEDeformableDETRHead on a small synthetic batch of two differently sized images: gradients,
// detached references, per-sample masks, rank averaging of the loss normalisers and decoding.
#include "olv2/models/heads/te_deformable_detr_head.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "olv2/util/autocast_guard.h"

namespace olv2 {
namespace {

TeDeformableDetrHeadOptions te_small_options() {
  TeDeformableDetrHeadOptions options;
  options.num_classes = 3;
  options.in_channels = 16;
  options.embed_dims = 16;
  options.num_query = 6;
  options.num_feature_levels = 2;
  options.num_encoder_layers = 1;
  options.num_decoder_layers = 3;
  options.num_heads = 2;
  options.num_points = 2;
  options.feedforward_channels = 32;
  options.positional_encoding.num_feats = 8;
  options.sync_cls_avg_factor = true;  // as baseline_large
  options.with_box_refine = true;
  return options;
}

struct TeBatch {
  std::vector<at::Tensor> feats;  // strides 8 and 16 of a 64 x 80 padded input
  DetrImageGeometry geometry;
  std::vector<at::Tensor> gt_boxes, gt_labels;
};

TeBatch te_batch() {
  TeBatch batch;
  batch.feats = {torch::randn({2, 16, 8, 10}), torch::randn({2, 16, 4, 5})};
  batch.geometry.batch_input_shape = {64, 80};
  batch.geometry.img_shapes = {{64, 80}, {40, 56}};
  batch.gt_boxes = {torch::tensor({{4.0, 6.0, 30.0, 40.0}, {50.0, 10.0, 70.0, 20.0}}),
                    torch::tensor({{10.0, 12.0, 20.0, 30.0}})};
  batch.gt_labels = {torch::tensor({0, 2}), torch::tensor({1})};
  return batch;
}

// Away from the original init, whose zero last regression layers block most gradients.
TeDeformableDetrHead te_perturbed_head(const TeDeformableDetrHeadOptions& options) {
  TeDeformableDetrHead head(options);
  torch::NoGradGuard no_grad;
  for (auto& parameter : head->parameters()) parameter.add_(0.05 * torch::randn_like(parameter));
  head->set_dropout(0.0);
  return head;
}

at::Tensor te_loss_sum(const DetrHeadLosses& losses) {
  at::Tensor total = torch::zeros({});
  for (const auto& [name, value] : losses.losses) total = total + value;
  return total;
}

TEST(TeDeformableDetrHead, EveryParameterGetsAFiniteGradientFromTheLosses) {
  torch::manual_seed(0);
  const TeBatch batch = te_batch();
  TeDeformableDetrHead head = te_perturbed_head(te_small_options());
  const HeadOutputs out = head->forward(batch.feats, batch.geometry);
  const DetrHeadLosses losses = head->loss(out, batch.gt_boxes, batch.gt_labels, batch.geometry);
  ASSERT_EQ(losses.losses.size(), 9u);
  te_loss_sum(losses).backward();
  for (const auto& item : head->named_parameters()) {
    const at::Tensor& grad = item.value().grad();
    ASSERT_TRUE(grad.defined()) << item.key();
    EXPECT_TRUE(grad.isfinite().all().item<bool>()) << item.key();
    EXPECT_GT(grad.abs().sum().item<double>(), 0.0) << item.key();
  }
}

TEST(TeDeformableDetrHead, ReferencesAreDetachedBetweenDecoderLayers) {
  torch::manual_seed(1);
  const TeBatch batch = te_batch();
  TeDeformableDetrHead head = te_perturbed_head(te_small_options());
  const HeadOutputs out = head->forward(batch.feats, batch.geometry);
  EXPECT_FALSE(out.intermediates.at("inter_references").requires_grad());
  ASSERT_EQ(out.intermediates.at("inter_references").size(-1), 4);
  // The last layer's outputs reach the earlier regression branches only through the refined
  // references, which the original detaches.
  (out.reg_preds[-1].sum() + out.cls_scores[-1].sum() + out.query_states[-1].sum()).backward();
  for (const auto& item : head->named_parameters()) {
    const std::string& name = item.key();
    const at::Tensor& grad = item.value().grad();
    const bool reaches = grad.defined() && grad.abs().sum().item<double>() > 0.0;
    if (name.rfind("reg_branches.0.", 0) == 0 || name.rfind("reg_branches.1.", 0) == 0) {
      EXPECT_FALSE(reaches) << name;
    } else if (name.rfind("reg_branches.2.", 0) == 0) {
      EXPECT_TRUE(reaches) << name;
    }
  }
}

TEST(TeDeformableDetrHead, BatchedSamplesMatchSeparateRuns) {
  torch::manual_seed(2);
  const TeBatch batch = te_batch();
  TeDeformableDetrHead head = te_perturbed_head(te_small_options());
  head->eval();
  torch::NoGradGuard no_grad;
  const HeadOutputs together = head->forward(batch.feats, batch.geometry);
  for (int64_t b = 0; b < 2; ++b) {
    DetrImageGeometry alone;
    alone.batch_input_shape = batch.geometry.batch_input_shape;
    alone.img_shapes = {batch.geometry.img_shapes[b]};
    const HeadOutputs single = head->forward(
        {batch.feats[0].slice(0, b, b + 1), batch.feats[1].slice(0, b, b + 1)}, alone);
    EXPECT_TRUE(
        torch::allclose(single.reg_preds, together.reg_preds.slice(1, b, b + 1), 1e-5, 1e-6))
        << "sample " << b;
    EXPECT_TRUE(
        torch::allclose(single.cls_scores, together.cls_scores.slice(1, b, b + 1), 1e-5, 1e-5))
        << "sample " << b;
  }
  // The second image is padded, so its encoding differs from the same features unpadded.
  DetrImageGeometry unpadded = batch.geometry;
  unpadded.img_shapes[1] = {64, 80};
  const HeadOutputs full = head->forward(batch.feats, unpadded);
  EXPECT_FALSE(torch::allclose(full.reg_preds[-1][1], together.reg_preds[-1][1]));
}

TEST(TeDeformableDetrHead, RankAveragedPositivesNormaliseTheLosses) {
  torch::manual_seed(3);
  const TeBatch batch = te_batch();
  TeDeformableDetrHeadOptions options = te_small_options();
  TeDeformableDetrHead head = te_perturbed_head(options);
  torch::NoGradGuard no_grad;
  const HeadOutputs out = head->forward(batch.feats, batch.geometry);
  // As if the other ranks held three times as many positives on average.
  const auto tripled = [](double count) { return 3.0 * count; };
  const DetrHeadLosses local = head->loss(out, batch.gt_boxes, batch.gt_labels, batch.geometry);
  const DetrHeadLosses synced =
      head->loss(out, batch.gt_boxes, batch.gt_labels, batch.geometry, tripled);
  for (size_t i = 0; i < local.losses.size(); ++i) {
    EXPECT_NEAR(synced.losses[i].second.item<double>() * 3.0, local.losses[i].second.item<double>(),
                1e-5 * local.losses[i].second.item<double>())
        << local.losses[i].first;
  }
  // Without sync_cls_avg_factor only the box losses use the averaged count.
  options.sync_cls_avg_factor = false;
  TeDeformableDetrHead unsynced(options);
  const auto source = head->named_parameters();
  for (auto& item : unsynced->named_parameters()) item.value().copy_(source[item.key()]);
  const DetrHeadLosses cls_local =
      unsynced->loss(out, batch.gt_boxes, batch.gt_labels, batch.geometry, tripled);
  for (size_t i = 0; i < local.losses.size(); ++i) {
    const std::string& name = local.losses[i].first;
    const bool cls = name.find("loss_cls") != std::string::npos;
    EXPECT_NEAR(cls_local.losses[i].second.item<double>() * (cls ? 1.0 : 3.0),
                local.losses[i].second.item<double>(), 1e-5 * local.losses[i].second.item<double>())
        << name;
  }
}

TEST(TeDeformableDetrHead, ImagesWithoutGroundTruthAreAllBackground) {
  torch::manual_seed(5);
  TeBatch batch = te_batch();
  batch.gt_boxes[1] = torch::zeros({0, 4});
  batch.gt_labels[1] = torch::zeros({0}, torch::kLong);
  TeDeformableDetrHead head = te_perturbed_head(te_small_options());
  const DetrHeadLosses losses = head->loss(head->forward(batch.feats, batch.geometry),
                                           batch.gt_boxes, batch.gt_labels, batch.geometry);
  for (const auto& layer : losses.assign_results) {
    EXPECT_EQ(layer.at(0).pos_inds.numel(), 2);
    EXPECT_EQ(layer.at(1).pos_inds.numel(), 0);
    EXPECT_EQ(layer.at(1).neg_inds.numel(), 6);
  }
  for (const auto& [name, value] : losses.losses) {
    EXPECT_TRUE(value.isfinite().item<bool>()) << name;
  }
  // No box in the whole batch: the box losses are zero but stay in the graph.
  batch.gt_boxes[0] = torch::zeros({0, 4});
  batch.gt_labels[0] = torch::zeros({0}, torch::kLong);
  const DetrHeadLosses empty = head->loss(head->forward(batch.feats, batch.geometry),
                                          batch.gt_boxes, batch.gt_labels, batch.geometry);
  for (const auto& [name, value] : empty.losses) {
    if (name.find("loss_cls") == std::string::npos) {
      EXPECT_EQ(value.item<double>(), 0.0) << name;
    }
    EXPECT_TRUE(value.requires_grad()) << name;
  }
}

TEST(TeDeformableDetrHead, TrainsUnderBfloat16Autocast) {
  torch::manual_seed(4);
  const TeBatch batch = te_batch();
  TeDeformableDetrHead head = te_perturbed_head(te_small_options());
  HeadOutputs out;
  {
    const AutocastGuard autocast(c10::kCPU, AutocastState{true, torch::kBFloat16});
    out = head->forward({batch.feats[0].to(torch::kBFloat16), batch.feats[1].to(torch::kBFloat16)},
                        batch.geometry);
  }
  EXPECT_EQ(out.reg_preds.scalar_type(), torch::kFloat);
  EXPECT_EQ(out.intermediates.at("inter_references").scalar_type(), torch::kFloat);
  const at::Tensor total =
      te_loss_sum(head->loss(out, batch.gt_boxes, batch.gt_labels, batch.geometry));
  EXPECT_TRUE(total.isfinite().item<bool>());
  total.backward();
  for (const auto& item : head->named_parameters()) {
    ASSERT_TRUE(item.value().grad().defined()) << item.key();
    EXPECT_TRUE(item.value().grad().isfinite().all().item<bool>()) << item.key();
  }
}

}  // namespace
}  // namespace olv2
