// Targets and losses of CustomDetrHead (mmdet DETRHead.get_targets / loss_single as overridden
// by OpenLane-V2).
#include <torch/torch.h>

#include <algorithm>

#include "olv2/losses/box_ops.h"
#include "olv2/models/heads/custom_detr_head.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

struct SampleTargets {
  at::Tensor labels;         // [Q] int64, num_classes = background
  at::Tensor label_weights;  // [Q]
  at::Tensor reg_targets;    // [Q, R]
  at::Tensor reg_weights;    // [Q, R]
  AssignResult assign;
};

struct LayerLosses {
  at::Tensor cls, bbox, iou;
  std::vector<AssignResult> assign;
};

}  // namespace

AssignResult CustomDetrHeadImpl::assign(const at::Tensor& cls_scores, const at::Tensor& reg_preds,
                                        const at::Tensor& gt_objects, const at::Tensor& gt_labels,
                                        std::pair<int64_t, int64_t> img_shape) const {
  AssignInputs inputs;
  inputs.predictions = reg_preds;
  inputs.cls_logits = cls_scores;
  inputs.targets = gt_objects.reshape({-1, options_.num_reg_dim});
  inputs.labels = gt_labels;
  inputs.img_h = static_cast<double>(img_shape.first);
  inputs.img_w = static_cast<double>(img_shape.second);
  return assigner_->assign(inputs);
}

namespace {

SampleTargets sample_targets(const CustomDetrHeadImpl& head, const at::Tensor& cls_scores,
                             const at::Tensor& reg_preds, const at::Tensor& gt_objects,
                             const at::Tensor& gt_labels, std::pair<int64_t, int64_t> img_shape) {
  const CustomDetrHeadOptions& options = head.options();
  const at::Tensor gt =
      gt_objects.reshape({-1, options.num_reg_dim}).to(reg_preds.device(), reg_preds.scalar_type());
  const at::Tensor labels_in = gt_labels.to(reg_preds.device()).to(torch::kLong).reshape({-1});
  SampleTargets t;
  t.assign = head.assign(cls_scores.detach(), reg_preds.detach(), gt, labels_in, img_shape);
  const int64_t num_queries = reg_preds.size(0);
  const at::Tensor pos = t.assign.pos_inds.to(reg_preds.device());
  const at::Tensor pos_gt_inds = t.assign.pos_assigned_gt_inds.to(reg_preds.device());

  t.labels = torch::full({num_queries}, options.num_classes,
                         torch::TensorOptions().dtype(torch::kLong).device(reg_preds.device()));
  t.labels.index_put_({pos}, labels_in.index_select(0, pos_gt_inds));
  t.label_weights = torch::ones({num_queries}, reg_preds.options());
  t.reg_targets = torch::zeros_like(reg_preds, torch::MemoryFormat::Contiguous).detach();
  t.reg_weights = torch::zeros_like(t.reg_targets);
  t.reg_weights.index_put_({pos}, 1.0);

  const at::Tensor pos_gt = gt.index_select(0, pos_gt_inds);
  at::Tensor pos_targets;
  if (options.object_type == DetrObjectType::kLane) {
    pos_targets = normalize_lane_points(pos_gt, options.lane_range);
  } else {
    const auto [img_h, img_w] = img_shape;
    const at::Tensor factor =
        torch::tensor({static_cast<double>(img_w), static_cast<double>(img_h),
                       static_cast<double>(img_w), static_cast<double>(img_h)},
                      gt.options())
            .unsqueeze(0);
    pos_targets = bbox_xyxy_to_cxcywh(pos_gt / factor);
  }
  t.reg_targets.index_put_({pos}, pos_targets);
  return t;
}

LayerLosses layer_losses(const CustomDetrHeadImpl& head, const at::Tensor& cls_scores,
                         const at::Tensor& reg_preds, const std::vector<at::Tensor>& gt_objects,
                         const std::vector<at::Tensor>& gt_labels,
                         const DetrImageGeometry& geometry,
                         const std::function<double(double)>& reduce_mean) {
  const CustomDetrHeadOptions& options = head.options();
  const int64_t batch = cls_scores.size(0);
  const int64_t num_queries = cls_scores.size(1);
  std::vector<at::Tensor> labels, label_weights, reg_targets, reg_weights, factors;
  int64_t num_pos = 0;
  LayerLosses out;
  for (int64_t b = 0; b < batch; ++b) {
    const std::pair<int64_t, int64_t> img_shape = options.object_type == DetrObjectType::kBox
                                                      ? geometry.img_shapes.at(b)
                                                      : std::pair<int64_t, int64_t>{0, 0};
    SampleTargets t =
        sample_targets(head, cls_scores[b], reg_preds[b], gt_objects[b], gt_labels[b], img_shape);
    num_pos += t.assign.pos_inds.numel();
    labels.push_back(t.labels);
    label_weights.push_back(t.label_weights);
    reg_targets.push_back(t.reg_targets);
    reg_weights.push_back(t.reg_weights);
    if (options.object_type == DetrObjectType::kBox) {
      const double w = static_cast<double>(img_shape.second);
      const double h = static_cast<double>(img_shape.first);
      factors.push_back(
          torch::tensor({w, h, w, h}, reg_preds.options()).unsqueeze(0).repeat({num_queries, 1}));
    }
    out.assign.push_back(std::move(t.assign));
  }
  const at::Tensor all_reg_targets = torch::cat(reg_targets);
  const at::Tensor all_reg_weights = torch::cat(reg_weights);

  // The DETR background weight is 0, so only positives normalise the classification loss.
  const double cls_avg_factor = std::max(static_cast<double>(num_pos), 1.0);
  out.cls =
      options.loss_cls->compute(cls_scores.reshape({-1, options.num_classes}), torch::cat(labels),
                                torch::cat(label_weights), cls_avg_factor);
  const double mean_pos =
      reduce_mean ? reduce_mean(static_cast<double>(num_pos)) : static_cast<double>(num_pos);
  const double reg_avg_factor = std::max(mean_pos, 1.0);

  const at::Tensor flat_preds = reg_preds.reshape({-1, options.num_reg_dim});
  if (options.object_type == DetrObjectType::kBox) {
    const at::Tensor all_factors = torch::cat(factors);
    out.iou = options.loss_iou->compute(bbox_cxcywh_to_xyxy(flat_preds) * all_factors,
                                        bbox_cxcywh_to_xyxy(all_reg_targets) * all_factors,
                                        all_reg_weights, reg_avg_factor);
  }
  out.bbox =
      options.loss_bbox->compute(flat_preds, all_reg_targets, all_reg_weights, reg_avg_factor);
  return out;
}

}  // namespace

DetrHeadLosses CustomDetrHeadImpl::loss(const HeadOutputs& outputs,
                                        const std::vector<at::Tensor>& gt_objects,
                                        const std::vector<at::Tensor>& gt_labels,
                                        const DetrImageGeometry& geometry,
                                        const std::function<double(double)>& reduce_mean) const {
  const int64_t num_layers = outputs.cls_scores.size(0);
  const int64_t batch = outputs.cls_scores.size(1);
  if (static_cast<int64_t>(gt_objects.size()) != batch ||
      static_cast<int64_t>(gt_labels.size()) != batch) {
    throw runtime_error("CustomDETRHead loss: ground truth for " +
                        std::to_string(gt_objects.size()) + " samples, expected " +
                        std::to_string(batch));
  }
  std::vector<LayerLosses> layers;
  for (int64_t l = 0; l < num_layers; ++l) {
    layers.push_back(layer_losses(*this, outputs.cls_scores[l], outputs.reg_preds[l], gt_objects,
                                  gt_labels, geometry, reduce_mean));
  }
  const bool boxes = options_.object_type == DetrObjectType::kBox;
  return collect_layer_losses(layers, [&](const LayerLosses& layer) {
    std::vector<std::pair<std::string, at::Tensor>> terms = {{"loss_cls", layer.cls},
                                                             {"loss_bbox", layer.bbox}};
    if (boxes) terms.emplace_back("loss_iou", layer.iou);
    return terms;
  });
}

}  // namespace olv2
