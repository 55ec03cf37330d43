#include "olv2/assign/match_cost.h"

#include "olv2/assign/match_costs.h"

namespace olv2 {

const Registry<MatchCost>& match_cost_registry() {
  using CostRegistry = Registry<MatchCost>;
  static const CostRegistry registry(
      "match cost", {
                        {"BBoxL1Cost", CostRegistry::entry<BBoxL1Cost>()},
                        {"CrossEntropyLossCost", CostRegistry::entry<CrossEntropyLossCost>()},
                        {"DiceCost", CostRegistry::entry<DiceCost>()},
                        {"FocalLossCost", CostRegistry::entry<FocalLossCost>()},
                        {"IoUCost", CostRegistry::entry<IoUCost>()},
                        {"LaneL1Cost", CostRegistry::entry<LaneL1Cost>()},
                    });
  return registry;
}

}  // namespace olv2
