#pragma once
// The match costs of mmdet 2.x and OpenLane-V2 that the Hungarian assigners add up, with their
// config schemas.
#include <ATen/core/Tensor.h>

#include "olv2/assign/match_cost.h"
#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/losses/box_ops.h"

namespace olv2 {

// `FocalLossCost`: focal loss of the GT class as positive minus as negative, from logits [Q, C]
// and GT labels [G].
struct FocalLossCost : MatchCost {
  double weight = 1.0;
  double alpha = 0.25;
  double gamma = 2.0;
  double eps = 1e-12;

  // `type: FocalLossCost` (weight, alpha, gamma, eps).
  static Schema schema();
  static FocalLossCost from_config(const ConfigNode& section);
  at::Tensor cost(const at::Tensor& cls_logits, const at::Tensor& gt_labels) const override;
  bool accepts(PredictionKind kind) const override { return kind == PredictionKind::kClassScores; }
};

// `LaneL1Cost`: L1 distance between flattened control points, pred [Q, R], gt [G, R].
struct LaneL1Cost : MatchCost {
  double weight = 1.0;

  // `type: LaneL1Cost` (weight).
  static Schema schema();
  static LaneL1Cost from_config(const ConfigNode& section);
  at::Tensor cost(const at::Tensor& pred, const at::Tensor& gt) const override;
  bool accepts(PredictionKind kind) const override { return kind == PredictionKind::kLanePoints; }
};

// `CrossEntropyLossCost` (use_sigmoid): the mean over the mask's elements of the binary
// cross-entropy of each query's logits against each GT mask, pred [Q, *] logits, gt [G, *] 0/1.
struct CrossEntropyLossCost : MatchCost {
  double weight = 1.0;

  // `type: CrossEntropyLossCost` (weight, use_sigmoid: only true, as the original).
  static Schema schema();
  static CrossEntropyLossCost from_config(const ConfigNode& section);
  at::Tensor cost(const at::Tensor& mask_logits, const at::Tensor& gt_masks) const override;
  bool accepts(PredictionKind kind) const override { return kind == PredictionKind::kMaskLogits; }
};

// `DiceCost`: 1 - dice between each query's mask and each GT mask, pred [Q, *], gt [G, *] 0/1;
// the predictions are taken as they are (LaneSegNet's config: logits) unless `pred_act` applies
// the sigmoid. Naive dice: (2 |p t| + eps) / (|p| + |t| + eps); else squares in the denominator.
struct DiceCost : MatchCost {
  double weight = 1.0;
  bool pred_act = false;
  double eps = 1e-3;
  bool naive_dice = true;

  // `type: DiceCost` (weight, pred_act, eps, naive_dice).
  static Schema schema();
  static DiceCost from_config(const ConfigNode& section);
  at::Tensor cost(const at::Tensor& mask_preds, const at::Tensor& gt_masks) const override;
  bool accepts(PredictionKind kind) const override { return kind == PredictionKind::kMaskLogits; }
};

enum class BoxFormat { kXyxy, kXywh };

// `BBoxL1Cost`: L1 distance of normalised boxes; pred is (cx, cy, w, h), gt is xyxy. With
// `kXywh` the GT is converted to (cx, cy, w, h), with `kXyxy` the prediction to xyxy.
struct BBoxL1Cost : MatchCost {
  double weight = 1.0;
  BoxFormat box_format = BoxFormat::kXyxy;

  // `type: BBoxL1Cost` (weight, box_format).
  static Schema schema();
  static BBoxL1Cost from_config(const ConfigNode& section);
  at::Tensor cost(const at::Tensor& pred, const at::Tensor& gt) const override;
  bool accepts(PredictionKind kind) const override { return kind == PredictionKind::kBoxes; }
};

// `IoUCost`: minus the (G)IoU of xyxy boxes pred [Q, 4] and gt [G, 4].
struct IoUCost : MatchCost {
  double weight = 1.0;
  IouMode iou_mode = IouMode::kGiou;

  // `type: IoUCost` (weight, iou_mode).
  static Schema schema();
  static IoUCost from_config(const ConfigNode& section);
  at::Tensor cost(const at::Tensor& pred, const at::Tensor& gt) const override;
  bool accepts(PredictionKind kind) const override { return kind == PredictionKind::kBoxes; }
};

}  // namespace olv2
