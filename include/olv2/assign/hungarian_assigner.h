#pragma once
#include <ATen/core/Tensor.h>

#include "olv2/assign/assign_result.h"
#include "olv2/assign/match_costs.h"

namespace olv2 {

struct HungarianAssignerOptions {
  FocalLossCostOptions cls_cost;
  double reg_cost_weight = 1.0;  // BBoxL1Cost
  BoxFormat reg_box_format = BoxFormat::kXyxy;
  double iou_cost_weight = 1.0;  // IoUCost
  IouMode iou_mode = IouMode::kGiou;

  // `type: HungarianAssigner` with its costs (FocalLossCost, BBoxL1Cost, IoUCost).
  static Schema schema();
  // An assigner of another type is an input error naming the key.
  static HungarianAssignerOptions from_config(const ConfigNode& assigner);
};

// mmdet 2.x `HungarianAssigner` for boxes: cost = focal class cost + L1 between normalised
// boxes + (G)IoU cost in pixels, then a minimum-cost one-to-one matching.
class HungarianAssigner {
 public:
  explicit HungarianAssigner(const HungarianAssignerOptions& options) : options_(options) {}
  // bbox_pred [Q, 4] (cx, cy, w, h) normalised by the image size, cls_logits [Q, C],
  // gt_boxes [G, 4] xyxy pixels, gt_labels [G]; `img_h`, `img_w` of the un-padded image.
  AssignResult assign(const at::Tensor& bbox_pred, const at::Tensor& cls_logits,
                      const at::Tensor& gt_boxes, const at::Tensor& gt_labels, double img_h,
                      double img_w) const;
  // The [Q, G] float32 cost matrix the matching minimises.
  at::Tensor cost(const at::Tensor& bbox_pred, const at::Tensor& cls_logits,
                  const at::Tensor& gt_boxes, const at::Tensor& gt_labels, double img_h,
                  double img_w) const;

 private:
  HungarianAssignerOptions options_;
};

// Matches the rows (queries) of a [Q, G] cost matrix to its columns (GTs) on the CPU in double
// precision and returns the assignment result (shared by the assigners).
AssignResult match_by_cost(const at::Tensor& cost, int64_t num_queries, int64_t num_gts);

}  // namespace olv2
