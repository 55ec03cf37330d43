#pragma once
// The match costs of mmdet 2.x and OpenLane-V2 that the Hungarian assigners add up, with their
// config schemas.
#include <ATen/core/Tensor.h>

#include <string>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/losses/box_ops.h"

namespace olv2 {

// Match costs of mmdet 2.x and OpenLane-V2: each returns a [Q, G] cost between Q predictions
// and G ground-truth objects, already multiplied by its weight.

struct FocalLossCostOptions {
  double weight = 1.0;
  double alpha = 0.25;
  double gamma = 2.0;
  double eps = 1e-12;

  // `type: FocalLossCost` (weight, alpha, gamma).
  static Schema schema();
  // A null or absent section keeps the defaults.
  static FocalLossCostOptions from_config(const ConfigNode* section);
};

// A cost with only a weight (`type: <type>`, `weight`).
Schema weighted_cost_schema(const std::string& type);
// `type: IoUCost` (weight, iou_mode).
Schema iou_cost_schema();
// `FocalLossCost`: focal loss of the GT class as positive minus as negative, from logits [Q, C]
// and GT labels [G].
at::Tensor focal_loss_cost(const at::Tensor& cls_logits, const at::Tensor& gt_labels,
                           const FocalLossCostOptions& options);

// `LaneL1Cost`: L1 distance between flattened control points, pred [Q, R], gt [G, R].
at::Tensor lane_l1_cost(const at::Tensor& pred, const at::Tensor& gt, double weight);

enum class BoxFormat { kXyxy, kXywh };
// `BBoxL1Cost`: L1 distance of normalised boxes; pred is (cx, cy, w, h), gt is xyxy. With
// `kXywh` the GT is converted to (cx, cy, w, h), with `kXyxy` the prediction to xyxy.
at::Tensor bbox_l1_cost(const at::Tensor& pred, const at::Tensor& gt, BoxFormat format,
                        double weight);

// `IoUCost`: minus the (G)IoU of xyxy boxes pred [Q, 4] and gt [G, 4].
at::Tensor iou_cost(const at::Tensor& pred, const at::Tensor& gt, IouMode mode, double weight);

}  // namespace olv2
