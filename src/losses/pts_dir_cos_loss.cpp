#include "olv2/losses/pts_dir_cos_loss.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema PtsDirCosLoss::schema() {
  Schema loss = typed_schema("PtsDirCosLoss");
  loss.optional("loss_weight", Schema::number())
      .optional("reduction", Schema::string().choices({"mean"}));
  return loss;
}

PtsDirCosLoss PtsDirCosLoss::from_config(const ConfigNode& section) {
  PtsDirCosLoss o;
  o.loss_weight = section.get<double>("loss_weight", o.loss_weight);
  return o;
}

at::Tensor PtsDirCosLoss::compute(const at::Tensor& pred, const at::Tensor& target,
                                  const at::Tensor& weight,
                                  std::optional<double> avg_factor) const {
  if (!avg_factor) throw runtime_error("PtsDirCosLoss needs an avg_factor");
  if (pred.dim() != 3 || target.sizes() != pred.sizes()) {
    throw runtime_error("PtsDirCosLoss: directions " + c10::str(pred.sizes()) + " and targets " +
                        c10::str(target.sizes()) + ", expected two [N, K, D] alike");
  }
  at::Tensor loss;
  if (target.numel() == 0) {
    loss = pred.sum() * 0;
  } else {
    const int64_t samples = pred.size(0);
    const int64_t directions = pred.size(1);
    const at::Tensor same = torch::ones({samples * directions}, target.options());
    loss = at::cosine_embedding_loss(pred.flatten(0, 1), target.flatten(0, 1), same, 0.0,
                                     at::Reduction::None)
               .view({samples, directions});
    if (weight.defined()) loss = loss * weight;
  }
  return loss_weight * (loss.sum() / *avg_factor);
}

}  // namespace olv2
