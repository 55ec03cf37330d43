#include "olv2/assign/assigner.h"

#include <torch/torch.h>

#include "olv2/assign/hungarian_assigner.h"
#include "olv2/assign/lane_hungarian_assigner.h"
#include "olv2/assign/lane_segment_hungarian_assigner.h"
#include "olv2/assign/linear_sum_assignment.h"
#include "olv2/assign/maptr_assigner.h"
#include "olv2/util/error.h"

namespace olv2 {

const char* describe(AssignedObjects objects) {
  switch (objects) {
    case AssignedObjects::kBoxes:
      return "boxes";
    case AssignedObjects::kLanes:
      return "lanes";
    case AssignedObjects::kLaneSegments:
      return "lane segments";
    case AssignedObjects::kPointSets:
      return "point sets";
  }
  return "objects";
}

AssignResult Assigner::assign(const AssignInputs& inputs) const {
  const int64_t num_queries = inputs.predictions.size(0);
  const int64_t num_gts = inputs.targets.size(0);
  if (num_queries == 0 || num_gts == 0) return match_by_cost({}, num_queries, num_gts);
  torch::NoGradGuard no_grad;
  return match_by_cost(cost(inputs), num_queries, num_gts);
}

const Registry<AssignerOptions>& assigner_registry() {
  using AssignerRegistry = Registry<AssignerOptions>;
  static const AssignerRegistry registry(
      "assigner",
      {
          {"HungarianAssigner", AssignerRegistry::entry<HungarianAssignerOptions>()},
          {"LaneHungarianAssigner", AssignerRegistry::entry<LaneHungarianAssignerOptions>()},
          {"LaneHungarianAssigner3D", AssignerRegistry::entry<LaneHungarianAssigner3DOptions>()},
          {"LaneSegmentHungarianAssigner3D",
           AssignerRegistry::entry<LaneSegmentHungarianAssigner3DOptions>()},
          {"MapTRAssigner", AssignerRegistry::entry<MapTrAssignerOptions>()},
      });
  return registry;
}

Schema assigner_train_cfg_schema() {
  Schema train_cfg = Schema::map();
  train_cfg.required("assigner", assigner_registry().schema());
  return train_cfg;
}

std::shared_ptr<const AssignerOptions> read_train_cfg_assigner(
    const ConfigNode& head, AssignedObjects objects,
    std::shared_ptr<const AssignerOptions> fallback) {
  const ConfigNode* train_cfg = head.find("train_cfg");
  if (train_cfg == nullptr || train_cfg->is_null()) {
    if (fallback == nullptr)
      throw input_error(head.where() + ": the head needs train_cfg.assigner");
    return fallback;
  }
  const ConfigNode& section = train_cfg->at("assigner");
  std::shared_ptr<const AssignerOptions> assigner = assigner_registry().read(section);
  if (assigner->objects() != objects) {
    throw input_error(section.where() + ": this head matches " + describe(objects) + ", `" +
                      section.at("type").as_string() + "` matches " +
                      describe(assigner->objects()));
  }
  return assigner;
}

AssignResult match_by_cost(const at::Tensor& cost, int64_t num_queries, int64_t num_gts) {
  const auto empty = torch::empty({0}, torch::kLong);
  if (num_queries == 0 || num_gts == 0) {
    return make_assign_result(num_queries, num_gts, empty, empty);
  }
  // The original copies the float32 cost to the CPU; SciPy then solves in float64.
  const at::Tensor host = cost.detach().to(torch::kCPU).to(torch::kDouble).contiguous();
  const std::vector<double> values(host.data_ptr<double>(), host.data_ptr<double>() + host.numel());
  const Assignment matching = linear_sum_assignment(values, num_queries, num_gts);
  return make_assign_result(num_queries, num_gts, torch::tensor(matching.rows, torch::kLong),
                            torch::tensor(matching.cols, torch::kLong));
}

}  // namespace olv2
