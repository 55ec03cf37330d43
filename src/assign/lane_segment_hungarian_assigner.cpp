#include "olv2/assign/lane_segment_hungarian_assigner.h"

#include <torch/torch.h>

#include "olv2/assign/match_costs.h"
#include "olv2/config/section_readers.h"
#include "olv2/util/error.h"

namespace olv2 {

LaneSegmentHungarianAssigner3DOptions::LaneSegmentHungarianAssigner3DOptions()
    : cls_cost(std::make_shared<FocalLossCost>()),
      reg_cost(std::make_shared<LaneL1Cost>()),
      mask_cost(std::make_shared<CrossEntropyLossCost>()),
      dice_cost(std::make_shared<DiceCost>()) {}

Schema LaneSegmentHungarianAssigner3DOptions::schema() {
  Schema assigner = typed_schema("LaneSegmentHungarianAssigner3D");
  assigner.optional("cls_cost", match_cost_registry().schema())
      .optional("reg_cost", match_cost_registry().schema())
      .optional("mask_cost", match_cost_registry().schema())
      .optional("dice_cost", match_cost_registry().schema())
      .optional("normalize_gt", Schema::boolean())
      .optional("pc_range", numbers_schema().nullable());
  return assigner;
}

LaneSegmentHungarianAssigner3DOptions LaneSegmentHungarianAssigner3DOptions::from_config(
    const ConfigNode& assigner) {
  LaneSegmentHungarianAssigner3DOptions o;
  const Registry<MatchCost>& costs = match_cost_registry();
  o.cls_cost = read_for_kind(costs, assigner, "cls_cost", PredictionKind::kClassScores, o.cls_cost);
  o.reg_cost = read_for_kind(costs, assigner, "reg_cost", PredictionKind::kLanePoints, o.reg_cost);
  o.mask_cost =
      read_for_kind(costs, assigner, "mask_cost", PredictionKind::kMaskLogits, o.mask_cost);
  o.dice_cost =
      read_for_kind(costs, assigner, "dice_cost", PredictionKind::kMaskLogits, o.dice_cost);
  o.normalize_gt = assigner.get<bool>("normalize_gt", o.normalize_gt);
  const ConfigNode* range = assigner.find("pc_range");
  if (range != nullptr && !range->is_null()) {
    o.pc_range = fixed_numbers<6>(*range);
  } else if (o.normalize_gt) {
    throw input_error(assigner.where() + ": normalize_gt needs pc_range");
  }
  return o;
}

std::shared_ptr<const Assigner> LaneSegmentHungarianAssigner3DOptions::build() const {
  return std::make_shared<const LaneSegmentHungarianAssigner>(*this);
}

at::Tensor LaneSegmentHungarianAssigner::cost(const AssignInputs& inputs) const {
  if (!inputs.mask_logits.defined() || !inputs.target_masks.defined()) {
    throw runtime_error("LaneSegmentHungarianAssigner3D: it matches by the masks too, none given");
  }
  const at::Tensor target =
      options_.normalize_gt ? normalize_lane_points(inputs.targets, options_.pc_range).clamp(0, 1)
                            : inputs.targets;
  return options_.cls_cost->cost(inputs.cls_logits, inputs.labels) +
         options_.reg_cost->cost(inputs.predictions, target) +
         options_.mask_cost->cost(inputs.mask_logits, inputs.target_masks) +
         options_.dice_cost->cost(inputs.mask_logits, inputs.target_masks);
}

}  // namespace olv2
