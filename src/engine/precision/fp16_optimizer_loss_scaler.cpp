#include "olv2/engine/precision/fp16_optimizer_loss_scaler.h"

#include <algorithm>
#include <sstream>

namespace olv2 {

Fp16OptimizerLossScaler::Fp16OptimizerLossScaler(const LossScalerOptions& options)
    : LossScaler(options) {}

void Fp16OptimizerLossScaler::update(bool overflow) {
  if (overflow) ++skipped_steps_;
  if (dynamic()) {
    if (overflow) {
      scale_ = std::max(scale_ / options_.scale_factor, options_.min_loss_scale);
      last_overflow_iter_ = cur_iter_;
    } else {
      const int64_t stable_steps = cur_iter_ - last_overflow_iter_ - 1;
      if (stable_steps > 0 && stable_steps % options_.loss_scale_window == 0) {
        scale_ *= options_.scale_factor;
      }
    }
  }
  ++cur_iter_;
}

std::string Fp16OptimizerLossScaler::describe(const LossScalerOptions& options) {
  std::ostringstream out;
  if (options.loss_scale > 0.0) {
    out << "DeepSpeed FP16_Optimizer static loss scale " << options.loss_scale;
    return out.str();
  }
  out << "DeepSpeed FP16_Optimizer loss scaler (no hysteresis, halves on every overflow, never "
         "stops at the minimum): initial 2^"
      << options.initial_scale_power << ", window " << options.loss_scale_window << ", min "
      << options.min_loss_scale;
  return out.str();
}

}  // namespace olv2
