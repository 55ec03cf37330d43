#include "olv2/assign/hungarian_assigner.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"

namespace olv2 {

Schema HungarianAssignerOptions::schema() {
  Schema reg_cost = weighted_cost_schema("BBoxL1Cost");
  reg_cost.optional("box_format", Schema::string().choices({"xyxy", "xywh"}));
  Schema assigner = typed_schema("HungarianAssigner");
  assigner.optional("cls_cost", FocalLossCostOptions::schema())
      .optional("reg_cost", reg_cost)
      .optional("iou_cost", iou_cost_schema());
  return assigner;
}

HungarianAssignerOptions HungarianAssignerOptions::from_config(const ConfigNode& assigner) {
  HungarianAssignerOptions o;
  o.cls_cost = FocalLossCostOptions::from_config(assigner.find("cls_cost"));
  o.reg_cost_weight = nested_number(assigner, "reg_cost", "weight", o.reg_cost_weight);
  if (const ConfigNode* reg = assigner.find("reg_cost"); reg != nullptr && !reg->is_null()) {
    if (const ConfigNode* format = reg->find("box_format")) {
      o.reg_box_format = format->as_string() == "xywh" ? BoxFormat::kXywh : BoxFormat::kXyxy;
    }
  }
  o.iou_cost_weight = nested_number(assigner, "iou_cost", "weight", o.iou_cost_weight);
  if (const ConfigNode* iou = assigner.find("iou_cost"); iou != nullptr && !iou->is_null()) {
    if (const ConfigNode* mode = iou->find("iou_mode")) {
      o.iou_mode = mode->as_string() == "giou" ? IouMode::kGiou : IouMode::kIou;
    }
  }
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
  const at::Tensor cls = focal_loss_cost(inputs.cls_logits, inputs.labels, options_.cls_cost);
  const at::Tensor reg =
      bbox_l1_cost(bbox_pred, gt_boxes / factor, options_.reg_box_format, options_.reg_cost_weight);
  const at::Tensor iou = iou_cost(bbox_cxcywh_to_xyxy(bbox_pred) * factor, gt_boxes,
                                  options_.iou_mode, options_.iou_cost_weight);
  return cls + reg + iou;
}

}  // namespace olv2
