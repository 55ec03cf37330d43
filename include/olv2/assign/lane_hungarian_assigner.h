#pragma once
#include <ATen/core/Tensor.h>

#include <array>

#include "olv2/assign/assign_result.h"
#include "olv2/assign/match_costs.h"

namespace olv2 {

// x_min, y_min, z_min, x_max, y_max, z_max in metres.
using BevRange = std::array<double, 6>;

// Control points [..., 3k] in metres -> each axis mapped to [0, 1] over `range` (values outside
// the range map outside [0, 1]).
at::Tensor normalize_lane_points(const at::Tensor& points, const BevRange& range);

// The inverse of `normalize_lane_points`, then clamped to the range (the original decoding).
at::Tensor denormalize_lane_points(const at::Tensor& normalized, const BevRange& range);

struct LaneHungarianAssignerOptions {
  FocalLossCostOptions cls_cost;
  double reg_cost_weight = 1.0;  // LaneL1Cost
  // IoUCost is configured in the original but never evaluated for lanes.
  BevRange bev_range = {-50.0, -25.0, -3.0, 50.0, 25.0, 2.0};
  bool normalize = false;  // compare predictions with GT normalised by `bev_range`

  // `type: LaneHungarianAssigner` with its costs (FocalLossCost, LaneL1Cost; an IoUCost is
  // accepted and unused), `bev_range`, `normalize`.
  static Schema schema();
  // An assigner of another type is an input error naming the key.
  static LaneHungarianAssignerOptions from_config(const ConfigNode& assigner);
};

// OpenLane-V2 `LaneHungarianAssigner`: cost = focal class cost + L1 between control-point
// vectors, then a minimum-cost one-to-one matching.
class LaneHungarianAssigner {
 public:
  explicit LaneHungarianAssigner(const LaneHungarianAssignerOptions& options) : options_(options) {}
  // lane_pred [Q, R] (normalised when `normalize`), cls_logits [Q, C], gt_lanes [G, R] metres,
  // gt_labels [G].
  AssignResult assign(const at::Tensor& lane_pred, const at::Tensor& cls_logits,
                      const at::Tensor& gt_lanes, const at::Tensor& gt_labels) const;
  at::Tensor cost(const at::Tensor& lane_pred, const at::Tensor& cls_logits,
                  const at::Tensor& gt_lanes, const at::Tensor& gt_labels) const;

 private:
  LaneHungarianAssignerOptions options_;
};

}  // namespace olv2
