#pragma once
// mmdet's `L1Loss`, the regression loss of lane control points and boxes.
#include <ATen/core/Tensor.h>

#include <optional>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/losses/loss.h"

namespace olv2 {

// mmdet `L1Loss`: |pred - target| summed over every element (not a per-dimension mean); an
// empty target gives a zero that still depends on `pred`.
struct L1Loss : Loss {
  double loss_weight = 1.0;

  // `type: L1Loss` (loss_weight).
  static Schema schema();
  static L1Loss from_config(const ConfigNode& section);
  at::Tensor compute(const at::Tensor& pred, const at::Tensor& target, const at::Tensor& weight,
                     std::optional<double> avg_factor) const override;
  bool accepts(PredictionKind kind) const override {
    return kind == PredictionKind::kBoxes || kind == PredictionKind::kLanePoints;
  }
};

}  // namespace olv2
