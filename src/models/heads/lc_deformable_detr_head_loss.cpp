// Targets and losses of LcDeformableDetrHead (the original's `_get_target_single`,
// `loss_single` and `loss`).
#include <torch/torch.h>

#include <algorithm>

#include "olv2/models/heads/lc_deformable_detr_head.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

struct LcSampleTargets {
  at::Tensor labels;       // [Q] int64, num_classes = background
  at::Tensor reg_targets;  // [Q, R] metres, zero for negatives
  at::Tensor reg_weights;  // [Q, R] one for positives
  AssignResult assign;
};

struct LcLayerLosses {
  at::Tensor cls, reg;
  std::vector<AssignResult> assign;
};

LcSampleTargets lc_sample_targets(const LcDeformableDetrHeadImpl& head,
                                  const at::Tensor& cls_scores, const at::Tensor& lanes_preds,
                                  const at::Tensor& gt_lanes, const at::Tensor& gt_labels) {
  const LcDeformableDetrHeadOptions& options = head.options();
  const auto device = lanes_preds.device();
  const at::Tensor gt = gt_lanes.reshape({-1, options.code_size}).to(device, torch::kFloat);
  const at::Tensor labels_in = gt_labels.to(device, torch::kLong).reshape({-1});
  LcSampleTargets t;
  t.assign = head.assign(cls_scores.detach(), lanes_preds.detach(), gt, labels_in);
  const at::Tensor pos = t.assign.pos_inds.to(device);
  const at::Tensor pos_gt_inds = t.assign.pos_assigned_gt_inds.to(device);
  const int64_t num_queries = lanes_preds.size(0);
  t.labels = torch::full({num_queries}, options.num_classes,
                         torch::TensorOptions().dtype(torch::kLong).device(device));
  t.labels.index_put_({pos}, labels_in.index_select(0, pos_gt_inds));
  t.reg_targets = torch::zeros({num_queries, options.code_size}, gt.options());
  t.reg_targets.index_put_({pos}, gt.index_select(0, pos_gt_inds));
  t.reg_weights = torch::zeros_like(t.reg_targets);
  t.reg_weights.index_put_({pos}, 1.0);
  return t;
}

double lc_reduced(const std::function<double(double)>& reduce_mean, double value) {
  return reduce_mean ? reduce_mean(value) : value;
}

LcLayerLosses lc_layer_losses(const LcDeformableDetrHeadImpl& head, const at::Tensor& cls_scores,
                              const at::Tensor& lanes_preds,
                              const std::vector<at::Tensor>& gt_lanes,
                              const std::vector<at::Tensor>& gt_labels,
                              const std::function<double(double)>& reduce_mean) {
  const LcDeformableDetrHeadOptions& options = head.options();
  std::vector<at::Tensor> labels, reg_targets, reg_weights;
  int64_t num_pos = 0;
  LcLayerLosses out;
  for (int64_t b = 0; b < cls_scores.size(0); ++b) {
    LcSampleTargets t =
        lc_sample_targets(head, cls_scores[b], lanes_preds[b], gt_lanes[b], gt_labels[b]);
    num_pos += t.assign.pos_inds.numel();
    labels.push_back(t.labels);
    reg_targets.push_back(t.reg_targets);
    reg_weights.push_back(t.reg_weights);
    out.assign.push_back(std::move(t.assign));
  }
  // The DETR background weight is 0, so only positives normalise the classification loss.
  double cls_avg_factor = static_cast<double>(num_pos);
  if (options.sync_cls_avg_factor) cls_avg_factor = lc_reduced(reduce_mean, cls_avg_factor);
  out.cls = options.loss_cls->compute(cls_scores.reshape({-1, options.num_classes}),
                                      torch::cat(labels), {}, std::max(cls_avg_factor, 1.0));

  const double reg_avg_factor =
      std::max(lc_reduced(reduce_mean, static_cast<double>(num_pos)), 1.0);
  // Rows whose target is not finite are left out: both sides zeroed, so they add nothing.
  const at::Tensor targets = torch::cat(reg_targets);
  const at::Tensor finite = targets.isfinite().all(-1, /*keepdim=*/true);
  const at::Tensor preds = lanes_preds.reshape({-1, options.code_size});
  const at::Tensor weights = torch::cat(reg_weights) * head.code_weights().to(targets.device());
  out.reg = options.loss_bbox->compute(torch::where(finite, preds, torch::zeros_like(preds)),
                                       torch::where(finite, targets, torch::zeros_like(targets)),
                                       weights, reg_avg_factor);
  out.cls = torch::nan_to_num(out.cls);
  out.reg = torch::nan_to_num(out.reg);
  return out;
}

}  // namespace

AssignResult LcDeformableDetrHeadImpl::assign(const at::Tensor& cls_scores,
                                              const at::Tensor& lanes_preds,
                                              const at::Tensor& gt_lanes,
                                              const at::Tensor& gt_labels) const {
  AssignInputs inputs;
  inputs.predictions = lanes_preds;
  inputs.cls_logits = cls_scores;
  inputs.targets = gt_lanes.reshape({-1, options_.code_size});
  inputs.labels = gt_labels;
  return assigner_->assign(inputs);
}

DetrHeadLosses LcDeformableDetrHeadImpl::loss(
    const HeadOutputs& outputs, const std::vector<at::Tensor>& gt_lanes,
    const std::vector<at::Tensor>& gt_labels, const DetrImageGeometry& /*geometry*/,
    const std::function<double(double)>& reduce_mean) const {
  // Losses in float32, as the original's `force_fp32`.
  const at::Tensor cls_scores = outputs.cls_scores.to(torch::kFloat);
  const at::Tensor lanes_preds = outputs.reg_preds.to(torch::kFloat);
  const int64_t num_layers = cls_scores.size(0);
  const int64_t batch = cls_scores.size(1);
  if (static_cast<int64_t>(gt_lanes.size()) != batch ||
      static_cast<int64_t>(gt_labels.size()) != batch) {
    throw runtime_error("LCDeformableDETRHead loss: ground truth for " +
                        std::to_string(gt_lanes.size()) + " lane sets and " +
                        std::to_string(gt_labels.size()) + " label sets, expected " +
                        std::to_string(batch));
  }
  std::vector<LcLayerLosses> layers;
  for (int64_t l = 0; l < num_layers; ++l) {
    layers.push_back(
        lc_layer_losses(*this, cls_scores[l], lanes_preds[l], gt_lanes, gt_labels, reduce_mean));
  }
  return collect_layer_losses(layers, [](const LcLayerLosses& layer) {
    return std::vector<std::pair<std::string, at::Tensor>>{{"loss_lane_cls", layer.cls},
                                                           {"loss_lane_reg", layer.reg}};
  });
}

}  // namespace olv2
