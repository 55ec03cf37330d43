#pragma once
// mmdet 2.x's `HungarianAssigner` for traffic-element boxes: its `assigner` options and its cost.
#include <ATen/core/Tensor.h>

#include <memory>

#include "olv2/assign/assigner.h"
#include "olv2/assign/match_costs.h"

namespace olv2 {

struct HungarianAssignerOptions : AssignerOptions {
  std::shared_ptr<const MatchCost> cls_cost = std::make_shared<FocalLossCost>();
  std::shared_ptr<const MatchCost> reg_cost = std::make_shared<BBoxL1Cost>();
  std::shared_ptr<const MatchCost> iou_cost = std::make_shared<IoUCost>();

  // `type: HungarianAssigner` with its costs: any registered cost of class scores (`cls_cost`)
  // and of boxes (`reg_cost`, `iou_cost`).
  static Schema schema();
  static HungarianAssignerOptions from_config(const ConfigNode& assigner);
  std::shared_ptr<const Assigner> build() const override;
  AssignedObjects objects() const override { return AssignedObjects::kBoxes; }
};

// mmdet 2.x `HungarianAssigner` for boxes: cost = class cost + regression cost between boxes
// normalised by the image + IoU cost in pixels, then a minimum-cost one-to-one matching.
// Predictions [Q, 4] (cx, cy, w, h) normalised by the image size, targets [G, 4] xyxy pixels.
class HungarianAssigner : public Assigner {
 public:
  explicit HungarianAssigner(const HungarianAssignerOptions& options) : options_(options) {}
  at::Tensor cost(const AssignInputs& inputs) const override;

 private:
  HungarianAssignerOptions options_;
};

}  // namespace olv2
