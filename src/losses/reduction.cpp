#include "olv2/losses/reduction.h"

#include <ATen/TensorOperators.h>

#include <limits>

namespace olv2 {

at::Tensor weight_reduce_loss(const at::Tensor& loss, const at::Tensor& weight,
                              std::optional<double> avg_factor) {
  const at::Tensor weighted = weight.defined() ? loss * weight : loss;
  if (!avg_factor) return weighted.mean();
  // Original behaviour (mmdet 2.x): float32 epsilon added to the normaliser.
  return weighted.sum() / (*avg_factor + std::numeric_limits<float>::epsilon());
}

}  // namespace olv2
