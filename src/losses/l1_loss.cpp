#include "olv2/losses/l1_loss.h"

#include <torch/torch.h>

#include "olv2/losses/reduction.h"

namespace olv2 {

at::Tensor l1_loss(const at::Tensor& pred, const at::Tensor& target, const at::Tensor& weight,
                   std::optional<double> avg_factor, double loss_weight) {
  // Original behaviour: an empty target gives a zero that still depends on `pred`.
  if (target.numel() == 0) return pred.sum() * 0;
  return loss_weight * weight_reduce_loss((pred - target).abs(), weight, avg_factor);
}

}  // namespace olv2
