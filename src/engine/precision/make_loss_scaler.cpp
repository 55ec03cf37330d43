#include "olv2/engine/precision/make_loss_scaler.h"

#include "olv2/engine/precision/dynamic_loss_scaler.h"
#include "olv2/engine/precision/fp16_optimizer_loss_scaler.h"

namespace olv2 {

std::unique_ptr<LossScaler> make_loss_scaler(LossScalerKind kind,
                                             const LossScalerOptions& options) {
  if (kind == LossScalerKind::kFp16Optimizer) {
    return std::make_unique<Fp16OptimizerLossScaler>(options);
  }
  return std::make_unique<DynamicLossScaler>(options);
}

std::string describe_loss_scaler(LossScalerKind kind, const LossScalerOptions& options) {
  return kind == LossScalerKind::kFp16Optimizer ? Fp16OptimizerLossScaler::describe(options)
                                                : DynamicLossScaler::describe(options);
}

}  // namespace olv2
