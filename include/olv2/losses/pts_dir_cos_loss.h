#pragma once
// MapTR's `PtsDirCosLoss`: how far the directions between consecutive predicted points turn from
// the ground truth's.
#include <ATen/core/Tensor.h>

#include <optional>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/losses/loss.h"

namespace olv2 {

// MapTR `PtsDirCosLoss`: 1 - cos between each predicted direction and its target (PyTorch's
// CosineEmbeddingLoss with target 1), directions [N, K, D], weighted per direction ([N, K]),
// summed and divided by `avg_factor`, which it requires (the original raises without one), times
// `loss_weight`. An empty target gives a zero that still depends on `pred`.
struct PtsDirCosLoss : Loss {
  double loss_weight = 1.0;

  // `type: PtsDirCosLoss` (loss_weight; `reduction: mean`, the only one with an avg_factor).
  static Schema schema();
  static PtsDirCosLoss from_config(const ConfigNode& section);
  at::Tensor compute(const at::Tensor& pred, const at::Tensor& target, const at::Tensor& weight,
                     std::optional<double> avg_factor) const override;
  bool accepts(PredictionKind kind) const override {
    return kind == PredictionKind::kPointDirections;
  }
};

}  // namespace olv2
