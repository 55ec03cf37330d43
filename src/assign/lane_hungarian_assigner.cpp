#include "olv2/assign/lane_hungarian_assigner.h"

#include <torch/torch.h>

#include "olv2/assign/assigner_config.h"
#include "olv2/assign/hungarian_assigner.h"
#include "olv2/config/section_readers.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema LaneHungarianAssignerOptions::schema() {
  Schema assigner = typed_schema("LaneHungarianAssigner");
  assigner.optional("cls_cost", FocalLossCostOptions::schema())
      .optional("reg_cost", weighted_cost_schema("LaneL1Cost"))
      .optional("iou_cost", iou_cost_schema())
      .optional("bev_range", numbers_schema())
      .optional("normalize", Schema::boolean());
  return assigner;
}

LaneHungarianAssignerOptions LaneHungarianAssignerOptions::from_config(const ConfigNode& assigner) {
  require_assigner_type(assigner, "LaneHungarianAssigner");
  LaneHungarianAssignerOptions o;
  o.cls_cost = FocalLossCostOptions::from_config(assigner.find("cls_cost"));
  o.reg_cost_weight = nested_number(assigner, "reg_cost", "weight", o.reg_cost_weight);
  if (const ConfigNode* range = assigner.find("bev_range")) o.bev_range = fixed_numbers<6>(*range);
  o.normalize = assigner.get<bool>("normalize", o.normalize);
  return o;
}
namespace {

void check_points(const at::Tensor& points) {
  if (points.dim() < 1 || points.size(-1) % 3 != 0) {
    throw runtime_error("lane control points: last dimension must be a multiple of 3 (x, y, z)");
  }
}

}  // namespace

at::Tensor normalize_lane_points(const at::Tensor& points, const BevRange& range) {
  check_points(points);
  at::Tensor out = torch::zeros_like(points);
  for (int64_t axis = 0; axis < 3; ++axis) {
    const auto coords = points.slice(-1, axis, c10::nullopt, 3);
    out.slice(-1, axis, c10::nullopt, 3)
        .copy_((coords - range[axis]) / (range[axis + 3] - range[axis]));
  }
  return out;
}

at::Tensor denormalize_lane_points(const at::Tensor& normalized, const BevRange& range) {
  check_points(normalized);
  at::Tensor out = torch::empty_like(normalized);
  for (int64_t axis = 0; axis < 3; ++axis) {
    const auto coords = normalized.slice(-1, axis, c10::nullopt, 3);
    out.slice(-1, axis, c10::nullopt, 3)
        .copy_((coords * (range[axis + 3] - range[axis]) + range[axis])
                   .clamp(range[axis], range[axis + 3]));
  }
  return out;
}

at::Tensor LaneHungarianAssigner::cost(const at::Tensor& lane_pred, const at::Tensor& cls_logits,
                                       const at::Tensor& gt_lanes,
                                       const at::Tensor& gt_labels) const {
  const at::Tensor cls = focal_loss_cost(cls_logits, gt_labels, options_.cls_cost);
  const at::Tensor target =
      options_.normalize ? normalize_lane_points(gt_lanes, options_.bev_range) : gt_lanes;
  return cls + lane_l1_cost(lane_pred, target, options_.reg_cost_weight);
}

AssignResult LaneHungarianAssigner::assign(const at::Tensor& lane_pred,
                                           const at::Tensor& cls_logits, const at::Tensor& gt_lanes,
                                           const at::Tensor& gt_labels) const {
  const int64_t num_queries = lane_pred.size(0);
  const int64_t num_gts = gt_lanes.size(0);
  if (num_queries == 0 || num_gts == 0) return match_by_cost({}, num_queries, num_gts);
  torch::NoGradGuard no_grad;
  return match_by_cost(cost(lane_pred, cls_logits, gt_lanes, gt_labels), num_queries, num_gts);
}

}  // namespace olv2
