#include "olv2/assign/match_costs.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

Schema weighted_cost_schema(const std::string& type) {
  Schema cost = typed_schema(type);
  cost.optional("weight", Schema::number());
  return cost;
}

}  // namespace

Schema FocalLossCost::schema() {
  Schema cost = weighted_cost_schema("FocalLossCost");
  cost.optional("alpha", Schema::number())
      .optional("gamma", Schema::number())
      .optional("eps", Schema::number());
  return cost;
}

FocalLossCost FocalLossCost::from_config(const ConfigNode& section) {
  FocalLossCost o;
  o.weight = section.get<double>("weight", o.weight);
  o.alpha = section.get<double>("alpha", o.alpha);
  o.gamma = section.get<double>("gamma", o.gamma);
  o.eps = section.get<double>("eps", o.eps);
  return o;
}

at::Tensor FocalLossCost::cost(const at::Tensor& cls_logits, const at::Tensor& gt_labels) const {
  const at::Tensor prob = cls_logits.sigmoid();
  const at::Tensor neg_cost = -(1 - prob + eps).log() * (1 - alpha) * prob.pow(gamma);
  const at::Tensor pos_cost = -(prob + eps).log() * alpha * (1 - prob).pow(gamma);
  const at::Tensor labels = gt_labels.to(torch::kLong);
  return (pos_cost.index_select(1, labels) - neg_cost.index_select(1, labels)) * weight;
}

Schema LaneL1Cost::schema() { return weighted_cost_schema("LaneL1Cost"); }

LaneL1Cost LaneL1Cost::from_config(const ConfigNode& section) {
  LaneL1Cost o;
  o.weight = section.get<double>("weight", o.weight);
  return o;
}

at::Tensor LaneL1Cost::cost(const at::Tensor& pred, const at::Tensor& gt) const {
  return torch::cdist(pred, gt, 1) * weight;
}

Schema CrossEntropyLossCost::schema() {
  Schema cost = weighted_cost_schema("CrossEntropyLossCost");
  cost.optional("use_sigmoid", Schema::boolean());
  return cost;
}

CrossEntropyLossCost CrossEntropyLossCost::from_config(const ConfigNode& section) {
  require_flag(section, "use_sigmoid", true, "only the sigmoid form exists in the original");
  CrossEntropyLossCost o;
  o.weight = section.get<double>("weight", o.weight);
  return o;
}

at::Tensor CrossEntropyLossCost::cost(const at::Tensor& mask_logits,
                                      const at::Tensor& gt_masks) const {
  const at::Tensor logits = mask_logits.flatten(1).to(torch::kFloat);
  const at::Tensor gt = gt_masks.flatten(1).to(torch::kFloat);
  const at::Tensor pos = torch::binary_cross_entropy_with_logits(logits, torch::ones_like(logits),
                                                                 {}, {}, at::Reduction::None);
  const at::Tensor neg = torch::binary_cross_entropy_with_logits(logits, torch::zeros_like(logits),
                                                                 {}, {}, at::Reduction::None);
  const at::Tensor cost = pos.matmul(gt.t()) + neg.matmul((1 - gt).t());
  return cost / static_cast<double>(logits.size(1)) * weight;
}

Schema DiceCost::schema() {
  Schema cost = weighted_cost_schema("DiceCost");
  cost.optional("pred_act", Schema::boolean())
      .optional("eps", Schema::number())
      .optional("naive_dice", Schema::boolean());
  return cost;
}

DiceCost DiceCost::from_config(const ConfigNode& section) {
  DiceCost o;
  o.weight = section.get<double>("weight", o.weight);
  o.pred_act = section.get<bool>("pred_act", o.pred_act);
  o.eps = section.get<double>("eps", o.eps);
  o.naive_dice = section.get<bool>("naive_dice", o.naive_dice);
  return o;
}

at::Tensor DiceCost::cost(const at::Tensor& mask_preds, const at::Tensor& gt_masks) const {
  const at::Tensor preds = (pred_act ? mask_preds.sigmoid() : mask_preds).flatten(1);
  const at::Tensor gt = gt_masks.flatten(1).to(preds.scalar_type());
  const at::Tensor numerator = 2 * preds.matmul(gt.t());
  const at::Tensor denominator =
      naive_dice ? preds.sum(-1).unsqueeze(1) + gt.sum(-1).unsqueeze(0)
                 : preds.pow(2).sum(1).unsqueeze(1) + gt.pow(2).sum(1).unsqueeze(0);
  return (1 - (numerator + eps) / (denominator + eps)) * weight;
}

Schema BBoxL1Cost::schema() {
  Schema cost = weighted_cost_schema("BBoxL1Cost");
  cost.optional("box_format", Schema::string().choices({"xyxy", "xywh"}));
  return cost;
}

BBoxL1Cost BBoxL1Cost::from_config(const ConfigNode& section) {
  BBoxL1Cost o;
  o.weight = section.get<double>("weight", o.weight);
  if (section.get<std::string>("box_format", "xyxy") == "xywh") o.box_format = BoxFormat::kXywh;
  return o;
}

at::Tensor BBoxL1Cost::cost(const at::Tensor& pred, const at::Tensor& gt) const {
  const at::Tensor lhs = box_format == BoxFormat::kXyxy ? bbox_cxcywh_to_xyxy(pred) : pred;
  const at::Tensor rhs = box_format == BoxFormat::kXywh ? bbox_xyxy_to_cxcywh(gt) : gt;
  return torch::cdist(lhs, rhs, 1) * weight;
}

Schema IoUCost::schema() {
  Schema cost = weighted_cost_schema("IoUCost");
  cost.optional("iou_mode", Schema::string().choices({"iou", "giou"}));
  return cost;
}

IoUCost IoUCost::from_config(const ConfigNode& section) {
  IoUCost o;
  o.weight = section.get<double>("weight", o.weight);
  o.iou_mode =
      section.get<std::string>("iou_mode", "giou") == "giou" ? IouMode::kGiou : IouMode::kIou;
  return o;
}

at::Tensor IoUCost::cost(const at::Tensor& pred, const at::Tensor& gt) const {
  return -bbox_overlaps(pred, gt, iou_mode, /*aligned=*/false) * weight;
}

}  // namespace olv2
