#include "olv2/assign/lane_hungarian_assigner.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"

namespace olv2 {

Schema LaneHungarianAssignerOptions::schema() {
  Schema assigner = typed_schema("LaneHungarianAssigner");
  assigner.optional("cls_cost", match_cost_registry().schema())
      .optional("reg_cost", match_cost_registry().schema())
      .optional("iou_cost", match_cost_registry().schema())
      .optional("bev_range", numbers_schema())
      .optional("normalize", Schema::boolean());
  return assigner;
}

LaneHungarianAssignerOptions LaneHungarianAssignerOptions::from_config(const ConfigNode& assigner) {
  LaneHungarianAssignerOptions o;
  const Registry<MatchCost>& costs = match_cost_registry();
  o.cls_cost = read_for_kind(costs, assigner, "cls_cost", PredictionKind::kClassScores, o.cls_cost);
  o.reg_cost = read_for_kind(costs, assigner, "reg_cost", PredictionKind::kLanePoints, o.reg_cost);
  if (const ConfigNode* range = assigner.find("bev_range")) o.bev_range = fixed_numbers<6>(*range);
  o.normalize = assigner.get<bool>("normalize", o.normalize);
  return o;
}

Schema LaneHungarianAssigner3DOptions::schema() {
  Schema assigner = typed_schema("LaneHungarianAssigner3D");
  assigner.optional("cls_cost", match_cost_registry().schema())
      .optional("reg_cost", match_cost_registry().schema())
      .optional("normalize_gt", Schema::boolean())
      .optional("pc_range", numbers_schema());
  return assigner;
}

LaneHungarianAssigner3DOptions LaneHungarianAssigner3DOptions::from_config(
    const ConfigNode& assigner) {
  LaneHungarianAssigner3DOptions o;
  const Registry<MatchCost>& costs = match_cost_registry();
  o.cls_cost = read_for_kind(costs, assigner, "cls_cost", PredictionKind::kClassScores, o.cls_cost);
  o.reg_cost = read_for_kind(costs, assigner, "reg_cost", PredictionKind::kLanePoints, o.reg_cost);
  o.normalize = assigner.get<bool>("normalize_gt", o.normalize);
  if (const ConfigNode* range = assigner.find("pc_range")) o.bev_range = fixed_numbers<6>(*range);
  if (o.normalize && assigner.find("pc_range") == nullptr) {
    throw input_error(assigner.where() + ": normalize_gt needs pc_range");
  }
  return o;
}

std::shared_ptr<const Assigner> LaneHungarianAssignerOptions::build() const {
  return std::make_shared<const LaneHungarianAssigner>(*this);
}

at::Tensor LaneHungarianAssigner::cost(const AssignInputs& inputs) const {
  const at::Tensor cls = options_.cls_cost->cost(inputs.cls_logits, inputs.labels);
  const at::Tensor target = options_.normalize
                                ? normalize_lane_points(inputs.targets, options_.bev_range)
                                : inputs.targets;
  return cls + options_.reg_cost->cost(inputs.predictions, target);
}

}  // namespace olv2
