// Targets and losses of TEDeformableDETRHead (mmdet 2.x DETRHead.get_targets / loss_single with
// the assignment results returned, as OpenLane-V2 overrides them).
#include <torch/torch.h>

#include <algorithm>

#include "olv2/losses/box_ops.h"
#include "olv2/models/heads/detr_head_losses.h"
#include "olv2/models/heads/te_deformable_detr_head.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

struct TeBoxTargets {
  at::Tensor labels;        // [Q] int64, num_classes = background
  at::Tensor bbox_targets;  // [Q, 4] (cx, cy, w, h) normalised, zero for negatives
  at::Tensor bbox_weights;  // [Q, 4] one for positives
  AssignResult assign;
};

struct TeLayerLosses {
  at::Tensor cls, bbox, iou;
  std::vector<AssignResult> assign;
};

// [w, h, w, h] of an image of (h, w) pixels, as a [1, 4] row.
at::Tensor te_box_scale(std::pair<int64_t, int64_t> img_shape, const at::TensorOptions& options) {
  const auto w = static_cast<double>(img_shape.second);
  const auto h = static_cast<double>(img_shape.first);
  return torch::tensor({w, h, w, h}, options).unsqueeze(0);
}

TeBoxTargets te_sample_targets(const TeDeformableDetrHeadOptions& options, const Assigner& assigner,
                               const at::Tensor& cls_scores, const at::Tensor& bbox_preds,
                               const at::Tensor& gt_boxes, const at::Tensor& gt_labels,
                               std::pair<int64_t, int64_t> img_shape) {
  const at::Tensor gt = gt_boxes.reshape({-1, 4}).to(bbox_preds.options());
  const at::Tensor labels = gt_labels.reshape({-1}).to(bbox_preds.device(), torch::kLong);
  TeBoxTargets t;
  AssignInputs inputs;
  inputs.predictions = bbox_preds.detach();
  inputs.cls_logits = cls_scores.detach();
  inputs.targets = gt;
  inputs.labels = labels;
  inputs.img_h = static_cast<double>(img_shape.first);
  inputs.img_w = static_cast<double>(img_shape.second);
  t.assign = assigner.assign(inputs);
  const at::Tensor pos = t.assign.pos_inds.to(bbox_preds.device());
  const at::Tensor pos_gt = t.assign.pos_assigned_gt_inds.to(bbox_preds.device());

  t.labels =
      torch::full({bbox_preds.size(0)}, options.num_classes, labels.options().dtype(torch::kLong));
  t.labels.index_put_({pos}, labels.index_select(0, pos_gt));
  t.bbox_targets = torch::zeros_like(bbox_preds, torch::MemoryFormat::Contiguous);
  t.bbox_targets.index_put_({pos}, bbox_xyxy_to_cxcywh(gt.index_select(0, pos_gt) /
                                                       te_box_scale(img_shape, gt.options())));
  t.bbox_weights = torch::zeros_like(t.bbox_targets);
  t.bbox_weights.index_put_({pos}, 1.0);
  return t;
}

TeLayerLosses te_layer_losses(const TeDeformableDetrHeadOptions& options,
                              const at::Tensor& cls_scores, const at::Tensor& bbox_preds,
                              const std::vector<at::Tensor>& gt_boxes,
                              const std::vector<at::Tensor>& gt_labels,
                              const DetrImageGeometry& geometry,
                              const std::function<double(double)>& reduce_mean) {
  const int64_t batch = cls_scores.size(0);
  const int64_t num_queries = cls_scores.size(1);
  std::vector<at::Tensor> labels, bbox_targets, bbox_weights, factors;
  int64_t num_pos = 0;
  TeLayerLosses out;
  const std::shared_ptr<const Assigner> assigner = options.assigner->build();
  for (int64_t b = 0; b < batch; ++b) {
    TeBoxTargets t = te_sample_targets(options, *assigner, cls_scores[b], bbox_preds[b],
                                       gt_boxes[b], gt_labels[b], geometry.img_shapes.at(b));
    num_pos += t.assign.pos_inds.numel();
    labels.push_back(t.labels);
    bbox_targets.push_back(t.bbox_targets);
    bbox_weights.push_back(t.bbox_weights);
    factors.push_back(
        te_box_scale(geometry.img_shapes[b], bbox_preds.options()).expand({num_queries, 4}));
    out.assign.push_back(std::move(t.assign));
  }
  const DetrAverageFactors average =
      detr_average_factors(num_pos, options.sync_cls_avg_factor, reduce_mean);
  out.cls = options.loss_cls->compute(cls_scores.reshape({-1, options.num_classes}),
                                      torch::cat(labels), {}, average.cls);
  const double box_avg_factor = average.regression;

  const at::Tensor preds = bbox_preds.reshape({-1, 4});
  const at::Tensor targets = torch::cat(bbox_targets);
  const at::Tensor weights = torch::cat(bbox_weights);
  const at::Tensor scale = torch::cat(factors);
  out.bbox = options.loss_bbox->compute(preds, targets, weights, box_avg_factor);
  out.iou =
      options.loss_iou->compute(bbox_cxcywh_to_xyxy(preds) * scale,
                                bbox_cxcywh_to_xyxy(targets) * scale, weights, box_avg_factor);
  return out;
}

}  // namespace

DetrHeadLosses TeDeformableDetrHeadImpl::loss(
    const HeadOutputs& outputs, const std::vector<at::Tensor>& gt_boxes,
    const std::vector<at::Tensor>& gt_labels, const DetrImageGeometry& geometry,
    const std::function<double(double)>& reduce_mean) const {
  // The original computes its losses in fp32 (`force_fp32`).
  const at::Tensor all_cls_scores = outputs.cls_scores.to(torch::kFloat);
  const at::Tensor all_bbox_preds = outputs.reg_preds.to(torch::kFloat);
  const int64_t num_layers = all_cls_scores.size(0);
  const int64_t batch = all_cls_scores.size(1);
  if (static_cast<int64_t>(gt_boxes.size()) != batch ||
      static_cast<int64_t>(gt_labels.size()) != batch ||
      static_cast<int64_t>(geometry.img_shapes.size()) != batch) {
    throw runtime_error("TEDeformableDETRHead loss: " + std::to_string(gt_boxes.size()) +
                        " GT box sets, " + std::to_string(gt_labels.size()) + " label sets and " +
                        std::to_string(geometry.img_shapes.size()) +
                        " image shapes for a batch of " + std::to_string(batch));
  }
  std::vector<TeLayerLosses> layers;
  for (int64_t l = 0; l < num_layers; ++l) {
    layers.push_back(te_layer_losses(options_, all_cls_scores[l], all_bbox_preds[l], gt_boxes,
                                     gt_labels, geometry, reduce_mean));
  }
  return collect_layer_losses(layers, [](const TeLayerLosses& layer) {
    return std::vector<std::pair<std::string, at::Tensor>>{
        {"loss_cls", layer.cls}, {"loss_bbox", layer.bbox}, {"loss_iou", layer.iou}};
  });
}

}  // namespace olv2
