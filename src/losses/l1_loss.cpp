#include "olv2/losses/l1_loss.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"
#include "olv2/losses/reduction.h"

namespace olv2 {

Schema L1Loss::schema() {
  Schema loss = typed_schema("L1Loss");
  loss.optional("loss_weight", Schema::number());
  return loss;
}

L1Loss L1Loss::from_config(const ConfigNode& section) {
  L1Loss o;
  o.loss_weight = section.get<double>("loss_weight", o.loss_weight);
  return o;
}

at::Tensor L1Loss::compute(const at::Tensor& pred, const at::Tensor& target,
                           const at::Tensor& weight, std::optional<double> avg_factor) const {
  if (target.numel() == 0) return pred.sum() * 0;
  return loss_weight * weight_reduce_loss((pred - target).abs(), weight, avg_factor);
}

}  // namespace olv2
