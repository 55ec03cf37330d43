#pragma once
// mmdet 2.x's `HungarianAssigner` for traffic-element boxes: its `assigner` options and its cost.
#include <ATen/core/Tensor.h>

#include <memory>

#include "olv2/assign/assigner.h"
#include "olv2/assign/match_costs.h"

namespace olv2 {

struct HungarianAssignerOptions : AssignerOptions {
  FocalLossCostOptions cls_cost;
  double reg_cost_weight = 1.0;  // BBoxL1Cost
  BoxFormat reg_box_format = BoxFormat::kXyxy;
  double iou_cost_weight = 1.0;  // IoUCost
  IouMode iou_mode = IouMode::kGiou;

  // `type: HungarianAssigner` with its costs (FocalLossCost, BBoxL1Cost, IoUCost).
  static Schema schema();
  static HungarianAssignerOptions from_config(const ConfigNode& assigner);
  std::shared_ptr<const Assigner> build() const override;
  AssignedObjects objects() const override { return AssignedObjects::kBoxes; }
};

// mmdet 2.x `HungarianAssigner` for boxes: cost = focal class cost + L1 between normalised
// boxes + (G)IoU cost in pixels, then a minimum-cost one-to-one matching.
// Predictions [Q, 4] (cx, cy, w, h) normalised by the image size, targets [G, 4] xyxy pixels.
class HungarianAssigner : public Assigner {
 public:
  explicit HungarianAssigner(const HungarianAssignerOptions& options) : options_(options) {}
  at::Tensor cost(const AssignInputs& inputs) const override;

 private:
  HungarianAssignerOptions options_;
};

}  // namespace olv2
