#include "olv2/assign/maptr_assigner.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema MapTrAssignerOptions::schema() {
  Schema assigner = typed_schema("MapTRAssigner");
  assigner.optional("cls_cost", match_cost_registry().schema())
      .optional("reg_cost", match_cost_registry().schema())
      .optional("iou_cost", match_cost_registry().schema())
      .optional("normalize_gt", Schema::boolean())
      .optional("pc_range", numbers_schema().nullable());
  return assigner;
}

MapTrAssignerOptions MapTrAssignerOptions::from_config(const ConfigNode& assigner) {
  MapTrAssignerOptions o;
  const Registry<MatchCost>& costs = match_cost_registry();
  o.cls_cost = read_for_kind(costs, assigner, "cls_cost", PredictionKind::kClassScores, o.cls_cost);
  o.reg_cost = read_for_kind(costs, assigner, "reg_cost", PredictionKind::kLanePoints, o.reg_cost);
  require_flag(assigner, "normalize_gt", false,
               "MapTRAssigner compares the points in metres; the original never normalises them");
  return o;
}

std::shared_ptr<const Assigner> MapTrAssignerOptions::build() const {
  return std::make_shared<const MapTrAssigner>(*this);
}

std::pair<at::Tensor, at::Tensor> MapTrAssigner::cost_and_orders(const AssignInputs& inputs) const {
  const at::Tensor& targets = inputs.targets;
  if (targets.dim() != 3 || targets.size(2) != inputs.predictions.size(-1)) {
    throw runtime_error("MapTRAssigner: targets " + c10::str(targets.sizes()) +
                        ", expected [G, orders, " + std::to_string(inputs.predictions.size(-1)) +
                        "]");
  }
  const int64_t num_queries = inputs.predictions.size(0);
  const int64_t num_gts = targets.size(0);
  const int64_t num_orders = targets.size(1);
  const at::Tensor cls = options_.cls_cost->cost(inputs.cls_logits, inputs.labels);
  const at::Tensor ordered = options_.reg_cost
                                 ->cost(inputs.predictions.reshape({num_queries, -1}),
                                        targets.reshape({num_gts * num_orders, -1}))
                                 .view({num_queries, num_gts, num_orders});
  auto [least, orders] = ordered.min(2);
  return {cls + least, orders};
}

at::Tensor MapTrAssigner::cost(const AssignInputs& inputs) const {
  return cost_and_orders(inputs).first;
}

AssignResult MapTrAssigner::assign(const AssignInputs& inputs) const {
  const int64_t num_queries = inputs.predictions.size(0);
  const int64_t num_gts = inputs.targets.size(0);
  if (num_queries == 0 || num_gts == 0) {
    AssignResult result = match_by_cost({}, num_queries, num_gts);
    result.pos_assigned_orders = torch::empty({0}, torch::kLong);
    return result;
  }
  torch::NoGradGuard no_grad;
  const auto [cost, orders] = cost_and_orders(inputs);
  AssignResult result = match_by_cost(cost, num_queries, num_gts);
  result.pos_assigned_orders =
      orders.to(torch::kCPU).index({result.pos_inds, result.pos_assigned_gt_inds}).to(torch::kLong);
  return result;
}

}  // namespace olv2
