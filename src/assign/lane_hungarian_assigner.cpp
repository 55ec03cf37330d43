#include "olv2/assign/lane_hungarian_assigner.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"

namespace olv2 {

Schema LaneHungarianAssignerOptions::schema() {
  Schema assigner = typed_schema("LaneHungarianAssigner");
  assigner.optional("cls_cost", FocalLossCostOptions::schema())
      .optional("reg_cost", weighted_cost_schema("LaneL1Cost"))
      .optional("iou_cost", iou_cost_schema())
      .optional("bev_range", numbers_schema())
      .optional("normalize", Schema::boolean());
  return assigner;
}

LaneHungarianAssignerOptions LaneHungarianAssignerOptions::from_config(const ConfigNode& assigner) {
  LaneHungarianAssignerOptions o;
  o.cls_cost = FocalLossCostOptions::from_config(assigner.find("cls_cost"));
  o.reg_cost_weight = nested_number(assigner, "reg_cost", "weight", o.reg_cost_weight);
  if (const ConfigNode* range = assigner.find("bev_range")) o.bev_range = fixed_numbers<6>(*range);
  o.normalize = assigner.get<bool>("normalize", o.normalize);
  return o;
}
std::shared_ptr<const Assigner> LaneHungarianAssignerOptions::build() const {
  return std::make_shared<const LaneHungarianAssigner>(*this);
}

at::Tensor LaneHungarianAssigner::cost(const AssignInputs& inputs) const {
  const at::Tensor cls = focal_loss_cost(inputs.cls_logits, inputs.labels, options_.cls_cost);
  const at::Tensor target = options_.normalize
                                ? normalize_lane_points(inputs.targets, options_.bev_range)
                                : inputs.targets;
  return cls + lane_l1_cost(inputs.predictions, target, options_.reg_cost_weight);
}

}  // namespace olv2
