#include "olv2/models/detectors/baseline.h"

#include <torch/torch.h>

#include <algorithm>

#include "olv2/util/activation_checkpoint.h"
#include "olv2/util/autocast_guard.h"
#include "olv2/util/collective.h"
#include "olv2/util/error.h"

namespace olv2 {

const std::vector<std::string> kBaselineCheckpointableStages{"extract_feat",
                                                             "img_view_transformer"};

at::Tensor total_loss(const LossMap& losses) {
  at::Tensor total;
  for (const auto& [name, value] : losses) total = total.defined() ? total + value : value;
  return total;
}

namespace {

std::vector<at::Tensor> parameters_of(const torch::nn::Module& module) {
  return module.parameters();
}

std::pair<int64_t, int64_t> hw(const std::array<int64_t, 3>& shape) { return {shape[0], shape[1]}; }

// Degree-(K-1) Bernstein weights at t = 0, 0.1, ..., 1 ([11, K]), computed in double and
// rounded to float32 as the original's result formatting does.
at::Tensor bernstein_weights(int64_t num_control) {
  const int64_t degree = num_control - 1;
  at::Tensor weights = torch::empty({11, num_control}, torch::kDouble);
  auto w = weights.accessor<double, 2>();
  for (int64_t k = 0; k <= 10; ++k) {
    const double t = static_cast<double>(k) / 10.0;
    for (int64_t j = 0; j <= degree; ++j) {
      double binomial = 1.0;
      for (int64_t i = 1; i <= j; ++i)
        binomial = binomial * static_cast<double>(degree - j + i) / i;
      w[k][j] = binomial * std::pow(1.0 - t, degree - j) * std::pow(t, j);
    }
  }
  return weights.to(torch::kFloat);
}

}  // namespace

BaselineImpl::BaselineImpl(const BaselineOptions& options) : options_(options) {
  for (const std::string& stage : options.checkpoint) {
    const auto& allowed = kBaselineCheckpointableStages;
    if (std::find(allowed.begin(), allowed.end(), stage) == allowed.end()) {
      throw input_error("model.checkpoint: unknown stage `" + stage +
                        "` (expected extract_feat or img_view_transformer)");
    }
  }
  // Registration order = the original's state-dict order.
  img_backbone_ = register_module("img_backbone", ResNet(options.img_backbone));
  img_neck_ = register_module("img_neck", CustomFpn(options.img_neck));
  img_view_transformer_ = register_module("img_view_transformer",
                                          CustomIpmViewTransformer(options.img_view_transformer));
  lc_head_ = register_module("lc_head", CustomDetrHead(options.lc_head));
  te_head_ = register_module("te_head", CustomDetrHead(options.te_head));
  lclc_head_ = register_module("lclc_head", TopologyHead(options.lclc_head));
  lcte_head_ = register_module("lcte_head", TopologyHead(options.lcte_head));
}

bool BaselineImpl::checkpointed(const std::string& stage) const {
  const auto& names = options_.checkpoint;
  return is_training() && torch::GradMode::is_enabled() &&
         std::find(names.begin(), names.end(), stage) != names.end();
}

at::Tensor BaselineImpl::extract_feat(const at::Tensor& images) {
  auto body = [this](const at::Tensor& x) { return img_neck_->forward(img_backbone_->forward(x)); };
  if (!checkpointed("extract_feat")) return body(images);
  std::vector<at::Tensor> params = parameters_of(*img_backbone_);
  for (const at::Tensor& p : parameters_of(*img_neck_)) params.push_back(p);
  return checkpoint(body, images, params);
}

BaselineOutputs BaselineImpl::simple_forward(const Batch& batch) {
  const at::Tensor& img = batch.images;
  if (img.dim() != 5 || batch.metas.empty() ||
      batch.metas.size() != static_cast<size_t>(img.size(0))) {
    throw runtime_error("Baseline: expected images [B, N, 3, H, W] with one meta per sample");
  }
  const int64_t num_samples = img.size(0), num_cams = img.size(1);
  BaselineOutputs out;
  out.image_features =
      extract_feat(img.view({num_samples * num_cams, img.size(2), img.size(3), img.size(4)}));

  // The original casts lidar2img to float32 and normalises by sample 0's front-camera img_shape.
  const at::Tensor ego2cam = batch.lidar2img.to(out.image_features.device(), torch::kFloat);
  const std::pair<int64_t, int64_t> img_hw = hw(batch.metas[0].img_shape.at(0));
  if (checkpointed("img_view_transformer")) {
    auto body = [this, ego2cam, img_hw](const at::Tensor& f) {
      return img_view_transformer_->forward(f, ego2cam, img_hw);
    };
    out.bev_features = checkpoint(body, out.image_features, parameters_of(*img_view_transformer_));
  } else {
    out.bev_features = img_view_transformer_->forward(out.image_features, ego2cam, img_hw);
  }
  const at::Tensor& f = out.image_features;
  const at::Tensor front =
      f.view({num_samples, num_cams, f.size(1), f.size(2), f.size(3)}).select(1, 0);

  // The lane head treats the BEV grid as its image.
  const std::pair<int64_t, int64_t> bev_hw{out.bev_features.size(2), out.bev_features.size(3)};
  out.lc_geometry.batch_input_shape = bev_hw;
  out.lc_geometry.img_shapes.assign(static_cast<size_t>(num_samples), bev_hw);
  out.te_geometry.batch_input_shape = hw(batch.metas[0].pad_shape.at(0));
  for (const ImageMeta& meta : batch.metas)
    out.te_geometry.img_shapes.push_back(hw(meta.img_shape.at(0)));

  out.lc = lc_head_->forward(out.bev_features, out.lc_geometry);
  out.te = te_head_->forward(front, out.te_geometry);
  out.lclc = lclc_head_->forward(out.lc.dec_features, out.lc.dec_features);
  out.lcte = lcte_head_->forward(out.lc.dec_features, out.te.dec_features);
  return out;
}

BaselineTrainOutputs BaselineImpl::forward_train_detailed(const Batch& batch) {
  if (!batch.has_gt())
    throw runtime_error("Baseline::forward_train: the batch has no ground truth");
  BaselineOutputs out = simple_forward(batch);
  // Matching costs and losses in fp32 whatever autocast produced the outputs in.
  const AutocastGuard cpu_fp32(c10::kCPU, AutocastState{false});
  const AutocastGuard cuda_fp32(c10::kCUDA, AutocastState{false});
  for (DetrHeadOutputs* head : {&out.lc, &out.te}) {
    head->cls_scores = head->cls_scores.to(at::kFloat);
    head->reg_preds = head->reg_preds.to(at::kFloat);
  }
  out.lclc = out.lclc.to(at::kFloat);
  out.lcte = out.lcte.to(at::kFloat);
  BaselineTrainOutputs result;
  DetrHeadLosses lc =
      lc_head_->loss(out.lc, batch.gt_lc, batch.gt_lc_labels, out.lc_geometry, all_reduce_mean);
  DetrHeadLosses te =
      te_head_->loss(out.te, batch.gt_te, batch.gt_te_labels, out.te_geometry, all_reduce_mean);
  for (auto& [name, value] : lc.losses) result.losses.emplace_back("lc_" + name, value);
  for (auto& [name, value] : te.losses) result.losses.emplace_back("te_" + name, value);
  result.lc_assign = lc.assign_results.back();
  result.te_assign = te.assign_results.back();
  result.losses.emplace_back(
      "topology_lclc_loss_cls",
      lclc_head_->loss(out.lclc, result.lc_assign, result.lc_assign, batch.gt_topology_lclc));
  result.losses.emplace_back(
      "topology_lcte_loss_cls",
      lcte_head_->loss(out.lcte, result.lc_assign, result.te_assign, batch.gt_topology_lcte));
  return result;
}

LossMap BaselineImpl::forward_train(const Batch& batch) {
  return forward_train_detailed(batch).losses;
}

std::vector<BaselineTestOutputs> BaselineImpl::forward_test(const Batch& batch) {
  const BaselineOutputs out = simple_forward(batch);
  std::vector<BaselineTestOutputs> results;
  for (int64_t b = 0; b < batch.size(); ++b) {
    const ImageMeta& meta = batch.metas[static_cast<size_t>(b)];
    BaselineTestOutputs r;
    r.lc = lc_head_->decode_lanes(out.lc.cls_scores[-1][b], out.lc.reg_preds[-1][b]);
    // Traffic elements are rescaled back to the raw front image (the original's rescale=True).
    const std::vector<double> scale(meta.scale_factor.begin(), meta.scale_factor.end());
    r.te = te_head_->decode_boxes(out.te.cls_scores[-1][b], out.te.reg_preds[-1][b],
                                  hw(meta.img_shape.at(0)), scale);
    r.lclc = out.lclc[-1][b].squeeze(-1);
    r.lcte = out.lcte[-1][b].squeeze(-1);
    results.push_back(std::move(r));
  }
  return results;
}

std::vector<FramePrediction> BaselineImpl::predict(const Batch& batch) {
  std::vector<BaselineTestOutputs> outputs = forward_test(batch);
  std::vector<FramePrediction> predictions;
  for (size_t b = 0; b < outputs.size(); ++b) {
    const BaselineTestOutputs& r = outputs[b];
    FramePrediction prediction;
    prediction.frame.segment_id = batch.metas[b].scene_token;
    prediction.frame.timestamp = batch.metas[b].sample_idx;

    const at::Tensor control =
        r.lc.lanes.detach().to(torch::kCPU, torch::kFloat).view({r.lc.lanes.size(0), -1, 3});
    const at::Tensor points =
        torch::matmul(bernstein_weights(control.size(1)), control).contiguous();
    const at::Tensor lane_scores = r.lc.scores.detach().to(torch::kCPU, torch::kFloat).contiguous();
    for (int64_t i = 0; i < points.size(0); ++i) {
      LanePrediction lane;
      const at::Tensor lane_points = points[i];
      auto p = lane_points.accessor<float, 2>();
      for (int64_t k = 0; k < points.size(1); ++k)
        lane.points.push_back(std::array<float, 3>{p[k][0], p[k][1], p[k][2]});
      lane.confidence = lane_scores[i][0].item<float>();
      prediction.lanes.push_back(std::move(lane));
    }
    const at::Tensor boxes = r.te.boxes_labels.detach().to(torch::kCPU, torch::kFloat).contiguous();
    const at::Tensor box_scores = r.te.scores.detach().to(torch::kCPU, torch::kFloat).contiguous();
    for (int64_t i = 0; i < boxes.size(0); ++i) {
      const at::Tensor box = boxes[i];
      auto row = box.accessor<float, 1>();
      TrafficElementPrediction element;
      element.box = std::array<float, 4>{row[0], row[1], row[2], row[3]};
      element.attribute = static_cast<int>(row[4]);
      element.confidence = box_scores[i].item<float>();
      prediction.traffic_elements.push_back(element);
    }
    auto flatten = [](const at::Tensor& t) {
      const at::Tensor c = t.detach().to(torch::kCPU, torch::kFloat).contiguous();
      return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
    };
    prediction.topology_lclc = flatten(r.lclc);
    prediction.topology_lcte = flatten(r.lcte);
    predictions.push_back(std::move(prediction));
  }
  return predictions;
}

void BaselineImpl::set_dropout(double p) {
  lc_head_->set_dropout(p);
  te_head_->set_dropout(p);
}

}  // namespace olv2
