#include "olv2/assign/match_costs.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"

namespace olv2 {

Schema FocalLossCostOptions::schema() {
  Schema cost = weighted_cost_schema("FocalLossCost");
  cost.optional("alpha", Schema::number()).optional("gamma", Schema::number());
  return cost;
}

FocalLossCostOptions FocalLossCostOptions::from_config(const ConfigNode* section) {
  FocalLossCostOptions o;
  if (section == nullptr || section->is_null()) return o;
  o.weight = section->get<double>("weight", o.weight);
  o.alpha = section->get<double>("alpha", o.alpha);
  o.gamma = section->get<double>("gamma", o.gamma);
  return o;
}

Schema weighted_cost_schema(const std::string& type) {
  Schema cost = typed_schema(type);
  cost.optional("weight", Schema::number());
  return cost;
}

Schema iou_cost_schema() {
  Schema cost = weighted_cost_schema("IoUCost");
  cost.optional("iou_mode", Schema::string().choices({"iou", "giou"}));
  return cost;
}

at::Tensor focal_loss_cost(const at::Tensor& cls_logits, const at::Tensor& gt_labels,
                           const FocalLossCostOptions& options) {
  const at::Tensor prob = cls_logits.sigmoid();
  const at::Tensor neg_cost =
      -(1 - prob + options.eps).log() * (1 - options.alpha) * prob.pow(options.gamma);
  const at::Tensor pos_cost =
      -(prob + options.eps).log() * options.alpha * (1 - prob).pow(options.gamma);
  const at::Tensor labels = gt_labels.to(torch::kLong);
  return (pos_cost.index_select(1, labels) - neg_cost.index_select(1, labels)) * options.weight;
}

at::Tensor lane_l1_cost(const at::Tensor& pred, const at::Tensor& gt, double weight) {
  return torch::cdist(pred, gt, 1) * weight;
}

at::Tensor bbox_l1_cost(const at::Tensor& pred, const at::Tensor& gt, BoxFormat format,
                        double weight) {
  const at::Tensor lhs = format == BoxFormat::kXyxy ? bbox_cxcywh_to_xyxy(pred) : pred;
  const at::Tensor rhs = format == BoxFormat::kXywh ? bbox_xyxy_to_cxcywh(gt) : gt;
  return torch::cdist(lhs, rhs, 1) * weight;
}

at::Tensor iou_cost(const at::Tensor& pred, const at::Tensor& gt, IouMode mode, double weight) {
  return -bbox_overlaps(pred, gt, mode, /*aligned=*/false) * weight;
}

}  // namespace olv2
