#pragma once
// mmdet's sigmoid `FocalLoss`, the classification loss of the heads, with its config.
#include <ATen/core/Tensor.h>

#include <optional>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/losses/loss.h"

namespace olv2 {

// mmdet `FocalLoss(use_sigmoid=True)`: sigmoid focal loss of logits `pred` [N, C] against
// integer class labels `target` [N], where label C is background (an all-zero target row).
// Computed as BCE-with-logits times the focal weight (the CPU form of the original, stable for
// saturated logits). `weight` is [N] or [N, C].
struct FocalLoss : Loss {
  double gamma = 2.0;
  double alpha = 0.25;
  double loss_weight = 1.0;

  // `type: FocalLoss` (use_sigmoid, gamma, alpha, loss_weight).
  static Schema schema();
  // Only use_sigmoid: true, as the original.
  static FocalLoss from_config(const ConfigNode& section);
  at::Tensor compute(const at::Tensor& pred, const at::Tensor& target, const at::Tensor& weight,
                     std::optional<double> avg_factor) const override;
  bool accepts(PredictionKind kind) const override { return kind == PredictionKind::kClassScores; }
};

}  // namespace olv2
