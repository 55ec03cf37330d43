#pragma once
// OpenLane-V2's `LaneHungarianAssigner` for lane control points (and TopoNet's
// `LaneHungarianAssigner3D`, the same matching): its `assigner` options and cost.
#include <ATen/core/Tensor.h>

#include <memory>

#include "olv2/assign/assigner.h"
#include "olv2/assign/match_costs.h"
#include "olv2/data/bev_range.h"

namespace olv2 {

struct LaneHungarianAssignerOptions : AssignerOptions {
  std::shared_ptr<const MatchCost> cls_cost = std::make_shared<FocalLossCost>();
  std::shared_ptr<const MatchCost> reg_cost = std::make_shared<LaneL1Cost>();
  BevRange bev_range = {-50.0, -25.0, -3.0, 50.0, 25.0, 2.0};
  bool normalize = false;  // compare predictions with GT normalised by `bev_range`

  // `type: LaneHungarianAssigner` with its costs: any registered cost of class scores
  // (`cls_cost`) and of lane points (`reg_cost`); an `iou_cost` is accepted and unused, as the
  // original configures one and never evaluates it. Then `bev_range`, `normalize`.
  static Schema schema();
  static LaneHungarianAssignerOptions from_config(const ConfigNode& assigner);
  std::shared_ptr<const Assigner> build() const override;
  AssignedObjects objects() const override { return AssignedObjects::kLanes; }
};

// TopoNet's `type: LaneHungarianAssigner3D`: the same assigner under TopoNet's keys,
// `normalize_gt` for `normalize` and `pc_range` for `bev_range`.
struct LaneHungarianAssigner3DOptions : LaneHungarianAssignerOptions {
  static Schema schema();
  static LaneHungarianAssigner3DOptions from_config(const ConfigNode& assigner);
};

// OpenLane-V2 `LaneHungarianAssigner`: cost = class cost + regression cost between
// control-point vectors, then a minimum-cost one-to-one matching.
// Predictions [Q, R] (normalised when `normalize`), targets [G, R] in metres.
class LaneHungarianAssigner : public Assigner {
 public:
  explicit LaneHungarianAssigner(const LaneHungarianAssignerOptions& options) : options_(options) {}
  at::Tensor cost(const AssignInputs& inputs) const override;

 private:
  LaneHungarianAssignerOptions options_;
};

}  // namespace olv2
