#include "olv2/losses/dice_loss.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"
#include "olv2/losses/reduction.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema DiceLoss::schema() {
  Schema loss = typed_schema("DiceLoss");
  loss.optional("use_sigmoid", Schema::boolean())
      .optional("activate", Schema::boolean())
      .optional("reduction", Schema::string())
      .optional("naive_dice", Schema::boolean())
      .optional("eps", Schema::number())
      .optional("loss_weight", Schema::number());
  return loss;
}

DiceLoss DiceLoss::from_config(const ConfigNode& section) {
  require_flag(section, "use_sigmoid", true, "the masks are sigmoid logits");
  if (section.get<std::string>("reduction", "mean") != "mean") {
    throw input_error(section.at("reduction").where() +
                      ": only reduction: mean is supported (the losses are averaged)");
  }
  DiceLoss o;
  o.activate = section.get<bool>("activate", o.activate);
  o.naive_dice = section.get<bool>("naive_dice", o.naive_dice);
  o.eps = section.get<double>("eps", o.eps);
  o.loss_weight = section.get<double>("loss_weight", o.loss_weight);
  return o;
}

at::Tensor DiceLoss::compute(const at::Tensor& pred, const at::Tensor& target,
                             const at::Tensor& weight, std::optional<double> avg_factor) const {
  if (pred.size(0) != target.size(0) || pred.numel() != target.numel()) {
    throw runtime_error("DiceLoss: predictions and targets of different shapes");
  }
  const at::Tensor p = (activate ? pred.sigmoid() : pred).flatten(1);
  const at::Tensor t = target.flatten(1).to(p.scalar_type());
  const at::Tensor overlap = (p * t).sum(1);
  at::Tensor dice;
  if (naive_dice) {
    dice = (2 * overlap + eps) / (p.sum(1) + t.sum(1) + eps);
  } else {
    dice = 2 * overlap / (((p * p).sum(1) + eps) + ((t * t).sum(1) + eps));
  }
  return loss_weight * weight_reduce_loss(1 - dice, weight, avg_factor);
}

}  // namespace olv2
