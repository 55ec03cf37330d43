#pragma once
// mmdet's sigmoid `CrossEntropyLoss`: the lane-type and mask losses of LaneSegNet's head.
#include <ATen/core/Tensor.h>

#include <optional>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/losses/loss.h"

namespace olv2 {

// mmdet `CrossEntropyLoss(use_sigmoid=True)`: binary cross-entropy with logits, element-wise.
// Logits [N, C] against integer labels [N] are compared with their one-hot rows (a label
// outside 0..C-1 is an all-zero row: the background); logits against 0/1 targets of their own
// shape are compared element by element. `weight` is [N] (every class of a row) or of the
// logits' shape. The mean runs over every element, or the sum is divided by `avg_factor`.
struct CrossEntropyLoss : Loss {
  double loss_weight = 1.0;

  // `type: CrossEntropyLoss` (use_sigmoid, use_mask, reduction, class_weight, ignore_index,
  // avg_non_ignore, loss_weight).
  static Schema schema();
  // Only the sigmoid form with mean reduction, no class weights and no ignored label; the others
  // are input errors naming the key.
  static CrossEntropyLoss from_config(const ConfigNode& section);
  at::Tensor compute(const at::Tensor& pred, const at::Tensor& target, const at::Tensor& weight,
                     std::optional<double> avg_factor) const override;
  bool accepts(PredictionKind kind) const override {
    return kind == PredictionKind::kClassScores || kind == PredictionKind::kMaskLogits;
  }
};

}  // namespace olv2
