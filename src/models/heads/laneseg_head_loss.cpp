// Losses of LaneSegHead (the original's `_get_target_single`, `loss_single` and `loss`).
#include <torch/torch.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "olv2/models/heads/lane_set_loss.h"
#include "olv2/models/heads/laneseg_head.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

struct LaneSegmentLayerLosses {
  at::Tensor cls, reg, dice, mask, lane_type;
  std::vector<AssignResult> assign;
};

// [Q] labels of the positives' GT, `background` elsewhere.
at::Tensor query_labels(const AssignResult& assign, const at::Tensor& gt_values, int64_t queries,
                        int64_t background, const c10::Device& device) {
  at::Tensor labels =
      torch::full({queries}, background, torch::TensorOptions().dtype(torch::kLong).device(device));
  labels.index_put_({assign.pos_inds.to(device)},
                    gt_values.to(device, torch::kLong)
                        .reshape({-1})
                        .index_select(0, assign.pos_assigned_gt_inds.to(device)));
  return labels;
}

}  // namespace

DetrHeadLosses LaneSegHeadImpl::loss(const LaneSegmentOutputs& outputs,
                                     const std::vector<LaneSegmentTargets>& targets,
                                     const std::function<double(double)>& reduce_mean) const {
  if (!outputs.masks.defined()) {
    throw runtime_error("LaneSegHead loss: the outputs have no masks (made in eval mode)");
  }
  // Losses in float32, as the original's `force_fp32`.
  const at::Tensor cls_scores = outputs.cls_scores.to(torch::kFloat);
  const at::Tensor lanes = outputs.lanes.to(torch::kFloat);
  const at::Tensor masks = outputs.masks.to(torch::kFloat);
  const at::Tensor left_types = outputs.left_type_scores.to(torch::kFloat);
  const at::Tensor right_types = outputs.right_type_scores.to(torch::kFloat);
  const int64_t num_layers = cls_scores.size(0);
  const int64_t batch = cls_scores.size(1);
  const int64_t queries = cls_scores.size(2);
  const int64_t type_classes = options_.num_lane_type_classes;
  const auto device = cls_scores.device();
  if (static_cast<int64_t>(targets.size()) != batch) {
    throw runtime_error("LaneSegHead loss: " + std::to_string(targets.size()) +
                        " ground-truth sets for a batch of " + std::to_string(batch));
  }
  std::vector<at::Tensor> gt_lanes, gt_labels, gt_masks;
  for (const LaneSegmentTargets& t : targets) {
    gt_lanes.push_back(t.lanes.reshape({-1, options_.code_size}).to(device, torch::kFloat));
    gt_labels.push_back(t.labels.to(device, torch::kLong).reshape({-1}));
    gt_masks.push_back(t.masks.to(device, torch::kFloat));
    if (gt_masks.back().size(0) != gt_lanes.back().size(0) ||
        gt_masks.back().size(-2) != options_.bev_h || gt_masks.back().size(-1) != options_.bev_w) {
      throw runtime_error("LaneSegHead loss: instance masks " + c10::str(t.masks.sizes()) +
                          " for " + std::to_string(gt_lanes.back().size(0)) +
                          " lane segments on a BEV of " + std::to_string(options_.bev_h) + " x " +
                          std::to_string(options_.bev_w));
    }
  }
  const LaneSetLossSettings settings = lane_set_loss_settings(options_, *assigner_, code_weights_);

  std::vector<LaneSegmentLayerLosses> layers;
  for (int64_t l = 0; l < num_layers; ++l) {
    std::vector<AssignResult> assign;
    for (int64_t b = 0; b < batch; ++b) {
      AssignInputs inputs;
      inputs.predictions = lanes[l][b].detach();
      inputs.cls_logits = cls_scores[l][b].detach();
      inputs.targets = gt_lanes[b];
      inputs.labels = gt_labels[b];
      inputs.mask_logits = masks[l][b].detach();
      inputs.target_masks = gt_masks[b];
      assign.push_back(assigner_->assign(inputs));
    }
    LaneSetLayerLosses set = lane_set_layer_losses(settings, cls_scores[l], lanes[l], gt_lanes,
                                                   gt_labels, reduce_mean, assign);
    LaneSegmentLayerLosses layer;
    layer.cls = set.cls;
    layer.reg = set.reg;

    // The boundaries' line types, averaged as the classes (DETR: over the positives).
    const double cls_avg_factor = set.cls_avg_factor;
    std::vector<at::Tensor> left_labels, right_labels;
    for (int64_t b = 0; b < batch; ++b) {
      left_labels.push_back(query_labels(assign[static_cast<size_t>(b)], targets[b].left_types,
                                         queries, type_classes, device));
      right_labels.push_back(query_labels(assign[static_cast<size_t>(b)], targets[b].right_types,
                                          queries, type_classes, device));
    }
    layer.lane_type =
        options_.loss_lane_type->compute(left_types[l].reshape({-1, type_classes}),
                                         torch::cat(left_labels), {}, cls_avg_factor) +
        options_.loss_lane_type->compute(right_types[l].reshape({-1, type_classes}),
                                         torch::cat(right_labels), {}, cls_avg_factor);

    // The masks of the positives against their GT's, averaged as the points. The original
    // averages the positives over the ranks twice, the second time an average of equal numbers.
    const double num_masks = set.reg_avg_factor;
    std::vector<at::Tensor> pos_masks, pos_targets;
    for (int64_t b = 0; b < batch; ++b) {
      const AssignResult& a = assign[static_cast<size_t>(b)];
      pos_masks.push_back(masks[l][b].index_select(0, a.pos_inds.to(device)));
      pos_targets.push_back(gt_masks[b].index_select(0, a.pos_assigned_gt_inds.to(device)));
    }
    const at::Tensor mask_preds = torch::cat(pos_masks);
    const at::Tensor mask_targets = torch::cat(pos_targets);
    if (mask_preds.size(0) == 0) {
      // No ground truth in the batch (the original fails here): zeros that keep the graph.
      layer.dice = masks[l].sum() * 0;
      layer.mask = masks[l].sum() * 0;
    } else {
      const double cells = static_cast<double>(options_.bev_h * options_.bev_w);
      layer.dice =
          torch::nan_to_num(options_.loss_dice->compute(mask_preds, mask_targets, {}, num_masks));
      layer.mask = torch::nan_to_num(options_.loss_mask->compute(
          mask_preds.reshape({-1, 1}), mask_targets.reshape({-1, 1}), {}, num_masks * cells));
    }
    layer.assign = std::move(set.assign);
    layers.push_back(std::move(layer));
  }
  return collect_layer_losses(layers, [](const LaneSegmentLayerLosses& layer) {
    return std::vector<std::pair<std::string, at::Tensor>>{{"loss_lane_cls", layer.cls},
                                                           {"loss_lane_reg", layer.reg},
                                                           {"loss_seg_dice", layer.dice},
                                                           {"loss_seg_mask", layer.mask},
                                                           {"loss_lane_type", layer.lane_type}};
  });
}

}  // namespace olv2
