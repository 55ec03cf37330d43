#pragma once
// LaneSegNet's `LaneSegmentHungarianAssigner3D`: lane segments matched by their class, their
// points and their instance masks.
#include <ATen/core/Tensor.h>

#include <memory>

#include "olv2/assign/assigner.h"
#include "olv2/assign/match_cost.h"
#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/bev_range.h"

namespace olv2 {

// Defaults: the original class's (its costs' own defaults, weight 1).
struct LaneSegmentHungarianAssigner3DOptions : AssignerOptions {
  std::shared_ptr<const MatchCost> cls_cost;   // of class scores
  std::shared_ptr<const MatchCost> reg_cost;   // of lane points
  std::shared_ptr<const MatchCost> mask_cost;  // of mask logits
  std::shared_ptr<const MatchCost> dice_cost;  // of mask logits
  bool normalize_gt = false;  // compare with GT lanes normalised by `pc_range`, clamped to [0, 1]
  BevRange pc_range = {-51.2, -25.6, -2.3, 51.2, 25.6, 1.7};

  LaneSegmentHungarianAssigner3DOptions();
  // `type: LaneSegmentHungarianAssigner3D` with any registered cost of class scores
  // (`cls_cost`), of lane points (`reg_cost`) and of mask logits (`mask_cost`, `dice_cost`);
  // `normalize_gt`, `pc_range`.
  static Schema schema();
  static LaneSegmentHungarianAssigner3DOptions from_config(const ConfigNode& assigner);
  std::shared_ptr<const Assigner> build() const override;
  AssignedObjects objects() const override { return AssignedObjects::kLaneSegments; }
};

// cost = class cost + regression cost (all of a segment's points: centerline, left and right
// boundary) + mask cost + dice cost, between every query and every GT segment; the masks are
// the inputs' `mask_logits` [Q, h, w] and `target_masks` [G, h, w].
class LaneSegmentHungarianAssigner : public Assigner {
 public:
  explicit LaneSegmentHungarianAssigner(const LaneSegmentHungarianAssigner3DOptions& options)
      : options_(options) {}
  at::Tensor cost(const AssignInputs& inputs) const override;

 private:
  LaneSegmentHungarianAssigner3DOptions options_;
};

}  // namespace olv2
