#include "olv2/assign/hungarian_assigner.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"

namespace olv2 {

Schema HungarianAssignerOptions::schema() {
  Schema assigner = typed_schema("HungarianAssigner");
  assigner.optional("cls_cost", match_cost_registry().schema())
      .optional("reg_cost", match_cost_registry().schema())
      .optional("iou_cost", match_cost_registry().schema());
  return assigner;
}

HungarianAssignerOptions HungarianAssignerOptions::from_config(const ConfigNode& assigner) {
  HungarianAssignerOptions o;
  const Registry<MatchCost>& costs = match_cost_registry();
  o.cls_cost = read_for_kind(costs, assigner, "cls_cost", PredictionKind::kClassScores, o.cls_cost);
  o.reg_cost = read_for_kind(costs, assigner, "reg_cost", PredictionKind::kBoxes, o.reg_cost);
  o.iou_cost = read_for_kind(costs, assigner, "iou_cost", PredictionKind::kBoxes, o.iou_cost);
  return o;
}

std::shared_ptr<const Assigner> HungarianAssignerOptions::build() const {
  return std::make_shared<const HungarianAssigner>(*this);
}

at::Tensor HungarianAssigner::cost(const AssignInputs& inputs) const {
  const at::Tensor& bbox_pred = inputs.predictions;
  const at::Tensor& gt_boxes = inputs.targets;
  const double img_h = inputs.img_h;
  const double img_w = inputs.img_w;
  const at::Tensor factor =
      torch::tensor({img_w, img_h, img_w, img_h}, gt_boxes.options()).unsqueeze(0);
  const at::Tensor cls = options_.cls_cost->cost(inputs.cls_logits, inputs.labels);
  const at::Tensor reg = options_.reg_cost->cost(bbox_pred, gt_boxes / factor);
  const at::Tensor iou = options_.iou_cost->cost(bbox_cxcywh_to_xyxy(bbox_pred) * factor, gt_boxes);
  return cls + reg + iou;
}

}  // namespace olv2
