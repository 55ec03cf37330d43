#pragma once
// The match costs an assigner's `cls_cost`, `reg_cost` and `iou_cost` may name, by `type`.
#include <ATen/core/Tensor.h>

#include "olv2/config/registry.h"
#include "olv2/losses/prediction_kind.h"

namespace olv2 {

// A match cost of mmdet's MATCH_COST registry, configured by its section (which it is, as these
// hold no state): a [Q, G] cost between Q predictions and G targets, already multiplied by its
// weight.
struct MatchCost {
  virtual ~MatchCost() = default;
  virtual at::Tensor cost(const at::Tensor& predictions, const at::Tensor& targets) const = 0;
  // Whether it can compare predictions of `kind` with their targets.
  virtual bool accepts(PredictionKind kind) const = 0;
};

// The match costs a `*_cost.type` may name.
const Registry<MatchCost>& match_cost_registry();

}  // namespace olv2
