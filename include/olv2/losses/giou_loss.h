#pragma once
// mmdet's `GIoULoss`, a box regression loss of the traffic-element heads.
#include <ATen/core/Tensor.h>

#include <optional>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/losses/loss.h"

namespace olv2 {

// mmdet `GIoULoss`: 1 - GIoU of aligned xyxy boxes pred [N, 4] and target [N, 4]. `weight` is
// [N] or [N, 4] (then averaged over the 4 coordinates, as the original does); when every weight
// is zero the loss is an exact zero that keeps the graph.
struct GIoULoss : Loss {
  double loss_weight = 1.0;
  double eps = 1e-6;

  // `type: GIoULoss` (loss_weight, eps).
  static Schema schema();
  static GIoULoss from_config(const ConfigNode& section);
  at::Tensor compute(const at::Tensor& pred, const at::Tensor& target, const at::Tensor& weight,
                     std::optional<double> avg_factor) const override;
  bool accepts(PredictionKind kind) const override { return kind == PredictionKind::kBoxes; }
};

}  // namespace olv2
