#include "olv2/solver/lr_scheduler.h"

#include "olv2/solver/mmcv_cosine_annealing.h"

namespace olv2 {

const Registry<LrScheduleOptions>& lr_schedule_registry() {
  using Registry = Registry<LrScheduleOptions>;
  static const Registry registry(
      "LR schedule", {{"CosineAnnealing", Registry::entry<CosineAnnealingOptions>()}}, "policy");
  return registry;
}

}  // namespace olv2
