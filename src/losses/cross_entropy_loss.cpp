#include "olv2/losses/cross_entropy_loss.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"
#include "olv2/losses/reduction.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema CrossEntropyLoss::schema() {
  Schema loss = typed_schema("CrossEntropyLoss");
  loss.optional("use_sigmoid", Schema::boolean())
      .optional("use_mask", Schema::boolean())
      .optional("reduction", Schema::string())
      .optional("class_weight", numbers_schema().nullable())
      .optional("ignore_index", Schema::integer().nullable())
      .optional("avg_non_ignore", Schema::boolean())
      .optional("loss_weight", Schema::number());
  return loss;
}

CrossEntropyLoss CrossEntropyLoss::from_config(const ConfigNode& section) {
  require_flag(section, "use_sigmoid", true,
               "only the sigmoid cross-entropy is supported (mmdet's binary_cross_entropy)");
  require_flag(section, "use_mask", false, "only the sigmoid cross-entropy is supported");
  if (section.get<std::string>("reduction", "mean") != "mean") {
    throw input_error(section.at("reduction").where() +
                      ": only reduction: mean is supported (the losses are averaged)");
  }
  for (const char* key : {"class_weight", "ignore_index"}) {
    const ConfigNode* node = section.find(key);
    if (node != nullptr && !node->is_null()) {
      throw input_error(node->where() + ": `" + key + "` is not supported (leave it null)");
    }
  }
  require_flag(section, "avg_non_ignore", false, "no label is ignored");
  CrossEntropyLoss o;
  o.loss_weight = section.get<double>("loss_weight", o.loss_weight);
  return o;
}

at::Tensor CrossEntropyLoss::compute(const at::Tensor& pred, const at::Tensor& target,
                                     const at::Tensor& weight,
                                     std::optional<double> avg_factor) const {
  at::Tensor targets = target;
  at::Tensor element_weight = weight;
  if (pred.dim() == 2 && target.dim() == 1) {
    if (target.size(0) != pred.size(0)) {
      throw runtime_error("CrossEntropyLoss: " + std::to_string(target.size(0)) + " labels for " +
                          std::to_string(pred.size(0)) + " rows of logits");
    }
    const int64_t classes = pred.size(1);
    // Labels outside 0..C-1 (the background C) give all-zero rows.
    targets = torch::one_hot(target.to(torch::kLong).clamp(0, classes), classes + 1)
                  .narrow(1, 0, classes);
    if (weight.defined() && weight.dim() == 1) element_weight = weight.view({-1, 1});
  } else if (!target.sizes().equals(pred.sizes())) {
    throw runtime_error(
        "CrossEntropyLoss: expected logits [N, C] with labels [N], or targets of "
        "the logits' shape");
  }
  const at::Tensor loss = torch::binary_cross_entropy_with_logits(
      pred, targets.to(pred.scalar_type()), {}, {}, at::Reduction::None);
  return loss_weight * weight_reduce_loss(loss, element_weight, avg_factor);
}

}  // namespace olv2
