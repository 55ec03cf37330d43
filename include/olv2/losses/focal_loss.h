#pragma once
// mmdet's sigmoid `FocalLoss`, the classification loss of the heads, with its config.
#include <ATen/core/Tensor.h>

#include <optional>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"

namespace olv2 {

struct FocalLossOptions {
  double gamma = 2.0;
  double alpha = 0.25;
  double loss_weight = 1.0;

  // `type: FocalLoss` (use_sigmoid, gamma, alpha, loss_weight).
  static Schema schema();
  // Only use_sigmoid: true, as the original.
  static FocalLossOptions from_config(const ConfigNode& section);
};

// mmdet `FocalLoss(use_sigmoid=True)`: sigmoid focal loss of logits `pred` [N, C] against
// integer class labels [N], where label C is background (an all-zero target row). Computed as
// BCE-with-logits times the focal weight (the CPU form of the original, stable for saturated
// logits). `weight` ([N] or [N, C], undefined = none) and `avg_factor` reduce as in
// `weight_reduce_loss`; the result is multiplied by `loss_weight`.
at::Tensor sigmoid_focal_loss(const at::Tensor& pred, const at::Tensor& labels,
                              const at::Tensor& weight, std::optional<double> avg_factor,
                              const FocalLossOptions& options);

}  // namespace olv2
