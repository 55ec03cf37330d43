#include "olv2/losses/giou_loss.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"
#include "olv2/losses/box_ops.h"
#include "olv2/losses/reduction.h"

namespace olv2 {

Schema GIoULoss::schema() {
  Schema loss = typed_schema("GIoULoss");
  loss.optional("loss_weight", Schema::number()).optional("eps", Schema::number());
  return loss;
}

GIoULoss GIoULoss::from_config(const ConfigNode& section) {
  GIoULoss o;
  o.loss_weight = section.get<double>("loss_weight", o.loss_weight);
  o.eps = section.get<double>("eps", o.eps);
  return o;
}

at::Tensor GIoULoss::compute(const at::Tensor& pred, const at::Tensor& target,
                             const at::Tensor& weight, std::optional<double> avg_factor) const {
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
