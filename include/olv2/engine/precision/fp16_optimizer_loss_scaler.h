#pragma once
// The loss-scaling rule of DeepSpeed's FP16_Optimizer, the non-ZeRO fp16 path.
#include <cstdint>
#include <string>

#include "olv2/engine/precision/loss_scaler.h"

namespace olv2 {

// The loss scaling DeepSpeed's FP16_Optimizer does itself (fused_optimizer.py,
// `_update_scale`; FP16_UnfusedOptimizer has the same rule): the non-ZeRO fp16
// path, e.g. the original trainer's JSON. Unlike DynamicLossScaler it has no
// hysteresis (`hysteresis` and `consecutive_hysteresis` are ignored), halves the
// scale on every overflow, clamps it at min_loss_scale and never stops the run
// (`raise_error_at_min_scale` is ignored), and doubles it when
// (step - last overflow step - 1) is a positive multiple of loss_scale_window:
// one step later than DynamicLossScaler.
class Fp16OptimizerLossScaler : public LossScaler {
 public:
  explicit Fp16OptimizerLossScaler(const LossScalerOptions& options);

  LossScalerKind kind() const override { return LossScalerKind::kFp16Optimizer; }
  // Counts every step, skipped ones and those of a static scale included.
  void update(bool overflow) override;
  std::string describe() const override { return describe(options_); }
  // The log line of an FP16_Optimizer scaler with `options`.
  static std::string describe(const LossScalerOptions& options);
};

}  // namespace olv2
