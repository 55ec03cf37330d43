#pragma once
// DeepSpeed's DynamicLossScaler, the loss-scaling rule under ZeRO and of the YAML `fp16` section.
#include <cstdint>
#include <string>

#include "olv2/engine/precision/loss_scaler.h"

namespace olv2 {

// DeepSpeed's DynamicLossScaler (deepspeed/runtime/fp16/loss_scaler.py), the
// scaler of ZeRO's optimizers (and of the YAML fp16 section here): an overflow
// first uses up the hysteresis, then halves the scale; after loss_scale_window
// steps since the last overflow the scale doubles.
class DynamicLossScaler : public LossScaler {
 public:
  explicit DynamicLossScaler(const LossScalerOptions& options);

  LossScalerKind kind() const override { return LossScalerKind::kDynamicLossScaler; }

  // Throws a runtime error naming the step at an overflow at the minimum scale
  // with no hysteresis left when raise_error_at_min_scale is set.
  void update(bool overflow) override;

  int64_t hysteresis_left() const { return cur_hysteresis_; }
  LossScalerState state() const override;
  void load_state(const LossScalerState& state) override;
  std::string describe() const override { return describe(options_); }
  // The log line of a DynamicLossScaler with `options`.
  static std::string describe(const LossScalerOptions& options);

 private:
  int64_t cur_hysteresis_;
};

}  // namespace olv2
