#include "olv2/losses/giou_loss.h"

#include <torch/torch.h>

#include "olv2/losses/box_ops.h"
#include "olv2/losses/reduction.h"

namespace olv2 {

at::Tensor giou_loss(const at::Tensor& pred, const at::Tensor& target, const at::Tensor& weight,
                     std::optional<double> avg_factor, double loss_weight, double eps) {
  if (weight.defined() && !(weight > 0).any().item<bool>()) {
    const at::Tensor broadcast = pred.dim() == weight.dim() + 1 ? weight.unsqueeze(1) : weight;
    return (pred * broadcast).sum();
  }
  at::Tensor box_weight = weight;
  if (weight.defined() && weight.dim() > 1) box_weight = weight.mean(-1);
  const at::Tensor loss = 1 - generalized_box_iou(pred, target, /*aligned=*/true, eps);
  return loss_weight * weight_reduce_loss(loss, box_weight, avg_factor);
}

}  // namespace olv2
