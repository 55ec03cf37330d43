#include "olv2/losses/focal_loss.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"
#include "olv2/losses/reduction.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema FocalLoss::schema() {
  Schema loss = typed_schema("FocalLoss");
  loss.optional("use_sigmoid", Schema::boolean())
      .optional("gamma", Schema::number())
      .optional("alpha", Schema::number())
      .optional("loss_weight", Schema::number());
  return loss;
}

FocalLoss FocalLoss::from_config(const ConfigNode& section) {
  if (!section.get<bool>("use_sigmoid", true)) {
    throw input_error(section.where() + ": only use_sigmoid: true is supported (as the original)");
  }
  FocalLoss o;
  o.gamma = section.get<double>("gamma", o.gamma);
  o.alpha = section.get<double>("alpha", o.alpha);
  o.loss_weight = section.get<double>("loss_weight", o.loss_weight);
  return o;
}

at::Tensor FocalLoss::compute(const at::Tensor& pred, const at::Tensor& labels,
                              const at::Tensor& weight, std::optional<double> avg_factor) const {
  if (pred.dim() != 2 || labels.dim() != 1 || labels.size(0) != pred.size(0)) {
    throw runtime_error("FocalLoss: expected logits [N, C] and labels [N]");
  }
  const int64_t num_classes = pred.size(1);
  const at::Tensor target = torch::one_hot(labels.to(torch::kLong), num_classes + 1)
                                .narrow(1, 0, num_classes)
                                .to(pred.scalar_type());
  const at::Tensor prob = pred.sigmoid();
  const at::Tensor pt = (1 - prob) * target + prob * (1 - target);
  const at::Tensor focal_weight = (alpha * target + (1 - alpha) * (1 - target)) * pt.pow(gamma);
  const at::Tensor loss =
      torch::binary_cross_entropy_with_logits(pred, target, {}, {}, at::Reduction::None) *
      focal_weight;
  at::Tensor element_weight = weight;
  if (weight.defined() && weight.dim() == 1) element_weight = weight.view({-1, 1});
  return loss_weight * weight_reduce_loss(loss, element_weight, avg_factor);
}

}  // namespace olv2
