#include "olv2/models/heads/lane_set_loss.h"

#include <torch/torch.h>

#include <algorithm>
#include <string>
#include <utility>

#include "olv2/models/heads/detr_head_losses.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

struct LaneSetTargets {
  at::Tensor labels;       // [Q] int64, num_classes = background
  at::Tensor reg_targets;  // [Q, R] metres, zero for negatives
  at::Tensor reg_weights;  // [Q, R] one for positives
  AssignResult assign;
};

// With `assign` undefined (no positives tensor), the sample is matched here.
LaneSetTargets lane_set_targets(const LaneSetLossSettings& settings, const at::Tensor& cls_scores,
                                const at::Tensor& lanes, const at::Tensor& gt_lanes,
                                const at::Tensor& gt_labels, AssignResult assign) {
  const auto device = lanes.device();
  const at::Tensor gt = gt_lanes.reshape({-1, settings.code_size}).to(device, torch::kFloat);
  const at::Tensor labels_in = gt_labels.to(device, torch::kLong).reshape({-1});
  LaneSetTargets t;
  t.assign = assign.pos_inds.defined()
                 ? std::move(assign)
                 : assign_lane_set(settings, cls_scores.detach(), lanes.detach(), gt, labels_in);
  const at::Tensor pos = t.assign.pos_inds.to(device);
  const at::Tensor pos_gt_inds = t.assign.pos_assigned_gt_inds.to(device);
  const int64_t num_queries = lanes.size(0);
  t.labels = torch::full({num_queries}, settings.num_classes,
                         torch::TensorOptions().dtype(torch::kLong).device(device));
  t.labels.index_put_({pos}, labels_in.index_select(0, pos_gt_inds));
  t.reg_targets = torch::zeros({num_queries, settings.code_size}, gt.options());
  t.reg_targets.index_put_({pos}, gt.index_select(0, pos_gt_inds));
  t.reg_weights = torch::zeros_like(t.reg_targets);
  t.reg_weights.index_put_({pos}, 1.0);
  return t;
}

}  // namespace

std::vector<double> read_code_weights(const ConfigNode& head, int64_t code_size) {
  const ConfigNode* node = head.find("code_weights");
  if (node == nullptr) return std::vector<double>(static_cast<size_t>(code_size), 1.0);
  std::vector<double> weights = node->as_vector<double>();
  if (static_cast<int64_t>(weights.size()) != code_size) {
    throw input_error(node->where() + ": " + std::to_string(weights.size()) +
                      " code_weights for code_size " + std::to_string(code_size));
  }
  return weights;
}

AssignResult assign_lane_set(const LaneSetLossSettings& settings, const at::Tensor& cls_scores,
                             const at::Tensor& lanes, const at::Tensor& gt_lanes,
                             const at::Tensor& gt_labels) {
  AssignInputs inputs;
  inputs.predictions = lanes;
  inputs.cls_logits = cls_scores;
  inputs.targets = gt_lanes.reshape({-1, settings.code_size});
  inputs.labels = gt_labels;
  return settings.assigner->assign(inputs);
}

LaneSetLayerLosses lane_set_layer_losses(const LaneSetLossSettings& settings,
                                         const at::Tensor& cls_scores, const at::Tensor& lanes,
                                         const std::vector<at::Tensor>& gt_lanes,
                                         const std::vector<at::Tensor>& gt_labels,
                                         const std::function<double(double)>& reduce_mean,
                                         std::vector<AssignResult> assign) {
  std::vector<at::Tensor> labels, reg_targets, reg_weights;
  int64_t num_pos = 0;
  LaneSetLayerLosses out;
  const int64_t batch = cls_scores.size(0);
  if (!assign.empty() && static_cast<int64_t>(assign.size()) != batch) {
    throw runtime_error("lane set loss: " + std::to_string(assign.size()) +
                        " matchings for a batch of " + std::to_string(batch));
  }
  for (int64_t b = 0; b < batch; ++b) {
    LaneSetTargets t =
        lane_set_targets(settings, cls_scores[b], lanes[b], gt_lanes[b], gt_labels[b],
                         assign.empty() ? AssignResult{} : std::move(assign[b]));
    num_pos += t.assign.pos_inds.numel();
    labels.push_back(t.labels);
    reg_targets.push_back(t.reg_targets);
    reg_weights.push_back(t.reg_weights);
    out.assign.push_back(std::move(t.assign));
  }
  const DetrAverageFactors factors =
      detr_average_factors(num_pos, settings.sync_cls_avg_factor, reduce_mean);
  out.cls_avg_factor = factors.cls;
  out.cls = settings.loss_cls->compute(cls_scores.reshape({-1, settings.num_classes}),
                                       torch::cat(labels), {}, out.cls_avg_factor);

  out.reg_avg_factor = factors.regression;
  const double reg_avg_factor = out.reg_avg_factor;
  // Rows whose target is not finite are left out: both sides zeroed, so they add nothing.
  const at::Tensor targets = torch::cat(reg_targets);
  const at::Tensor finite = targets.isfinite().all(-1, /*keepdim=*/true);
  const at::Tensor preds = lanes.reshape({-1, settings.code_size});
  const at::Tensor weights = torch::cat(reg_weights) * settings.code_weights.to(targets.device());
  out.reg = settings.loss_bbox->compute(torch::where(finite, preds, torch::zeros_like(preds)),
                                        torch::where(finite, targets, torch::zeros_like(targets)),
                                        weights, reg_avg_factor);
  out.cls = torch::nan_to_num(out.cls);
  out.reg = torch::nan_to_num(out.reg);
  return out;
}

}  // namespace olv2
