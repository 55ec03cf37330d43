#pragma once
// mmdet's `DiceLoss`, the overlap loss of LaneSegNet's instance masks.
#include <ATen/core/Tensor.h>

#include <optional>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/losses/loss.h"

namespace olv2 {

// mmdet `DiceLoss`: per instance (row of the flattened [N, *] masks) 1 - dice, where the naive
// dice is (2 |p t| + eps) / (|p| + |t| + eps) and the other (2 |p t|) / (|p|^2 + eps + |t|^2 +
// eps), p the sigmoid of the logits when `activate` (else the logits as given), t the 0/1
// target; then the mean over instances or the sum over `avg_factor`. `weight` is [N].
struct DiceLoss : Loss {
  bool activate = true;
  bool naive_dice = false;
  double eps = 1e-3;
  double loss_weight = 1.0;

  // `type: DiceLoss` (use_sigmoid, activate, reduction, naive_dice, eps, loss_weight).
  static Schema schema();
  // Only use_sigmoid: true and mean reduction, as the original supports for training.
  static DiceLoss from_config(const ConfigNode& section);
  at::Tensor compute(const at::Tensor& pred, const at::Tensor& target, const at::Tensor& weight,
                     std::optional<double> avg_factor) const override;
  bool accepts(PredictionKind kind) const override { return kind == PredictionKind::kMaskLogits; }
};

}  // namespace olv2
