#pragma once
// MapTR's `MapTRAssigner` (LaneSegNet's copy): point sets matched to ground truth given in every
// order it may be drawn in, its `assigner` options and cost.
#include <ATen/core/Tensor.h>

#include <memory>
#include <utility>

#include "olv2/assign/assigner.h"
#include "olv2/assign/match_costs.h"

namespace olv2 {

struct MapTrAssignerOptions : AssignerOptions {
  std::shared_ptr<const MatchCost> cls_cost = std::make_shared<FocalLossCost>();
  std::shared_ptr<const MatchCost> reg_cost = std::make_shared<LaneL1Cost>();

  // `type: MapTRAssigner` with any registered cost of class scores (`cls_cost`) and of points in
  // metres (`reg_cost`). `iou_cost` and `pc_range` are accepted and unused, as the original
  // builds and stores them and never evaluates them; so is `normalize_gt`, which must stay false.
  static Schema schema();
  static MapTrAssignerOptions from_config(const ConfigNode& assigner);
  std::shared_ptr<const Assigner> build() const override;
  AssignedObjects objects() const override { return AssignedObjects::kPointSets; }
};

// MapTR `MapTRAssigner`: the regression cost of a query and a GT is the least over the GT's
// orders (targets [G, S, R], padded orders far away); cost = class cost + that, then a
// minimum-cost one-to-one matching. Each positive keeps the order it was matched in
// (AssignResult::pos_assigned_orders), the first of equal least costs, as torch.min gives it.
class MapTrAssigner : public Assigner {
 public:
  explicit MapTrAssigner(const MapTrAssignerOptions& options) : options_(options) {}
  AssignResult assign(const AssignInputs& inputs) const override;
  at::Tensor cost(const AssignInputs& inputs) const override;

 private:
  // The [Q, G] cost and the [Q, G] order of each pair's least regression cost.
  std::pair<at::Tensor, at::Tensor> cost_and_orders(const AssignInputs& inputs) const;

  MapTrAssignerOptions options_;
};

}  // namespace olv2
