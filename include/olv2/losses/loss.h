#pragma once
// The losses a head's `loss_*` sections may name, by `type`.
#include <ATen/core/Tensor.h>

#include <memory>
#include <optional>

#include "olv2/config/registry.h"
#include "olv2/losses/prediction_kind.h"

namespace olv2 {

// A loss of mmdet's LOSSES registry, configured by its section (which it is, as these hold no
// state): `pred` against `target`, weighted per element or row by `weight` (undefined: none),
// reduced as in `weight_reduce_loss` (mean, or sum over `avg_factor`), times `loss_weight`.
struct Loss {
  virtual ~Loss() = default;
  virtual at::Tensor compute(const at::Tensor& pred, const at::Tensor& target,
                             const at::Tensor& weight, std::optional<double> avg_factor) const = 0;
  // Whether it can compare predictions of `kind` with their targets.
  virtual bool accepts(PredictionKind kind) const = 0;
};

// The losses a `loss_*.type` may name.
const Registry<Loss>& loss_registry();

// A loss of type `WeightedLoss` with `loss_weight`, its other keys at their defaults.
template <typename WeightedLoss>
std::shared_ptr<const Loss> weighted_loss(double loss_weight) {
  auto loss = std::make_shared<WeightedLoss>();
  loss->loss_weight = loss_weight;
  return loss;
}

}  // namespace olv2
