#include "olv2/engine/precision/dynamic_loss_scaler.h"

#include <algorithm>
#include <sstream>

#include "olv2/util/error.h"

namespace olv2 {

DynamicLossScaler::DynamicLossScaler(const LossScalerOptions& options)
    : LossScaler(options), cur_hysteresis_(options.hysteresis) {
  if (options_.hysteresis < 1) throw input_error("fp16.hysteresis must be >= 1");
}

void DynamicLossScaler::update(bool overflow) {
  if (overflow) ++skipped_steps_;
  if (!dynamic()) return;
  if (overflow) {
    if (options_.hysteresis == 1 || cur_hysteresis_ == 1) {
      if (scale_ == options_.min_loss_scale && options_.raise_error_at_min_scale) {
        throw runtime_error("optimizer step " + std::to_string(cur_iter_) +
                            ": gradient overflow at the minimum " + "loss scale " +
                            std::to_string(options_.min_loss_scale) +
                            " with no hysteresis left; stopping as DeepSpeed does (set " +
                            "fp16.raise_error_at_min_scale: false to keep skipping such "
                            "steps)");
      }
      scale_ = std::max(scale_ / options_.scale_factor, options_.min_loss_scale);
    } else {
      --cur_hysteresis_;
    }
    last_overflow_iter_ = cur_iter_;
  } else {
    if (options_.consecutive_hysteresis) cur_hysteresis_ = options_.hysteresis;
    if ((cur_iter_ - last_overflow_iter_) % options_.loss_scale_window == 0) {
      if (!options_.consecutive_hysteresis) cur_hysteresis_ = options_.hysteresis;
      scale_ *= options_.scale_factor;
    }
  }
  ++cur_iter_;
}

LossScalerState DynamicLossScaler::state() const {
  LossScalerState state = LossScaler::state();
  state.cur_hysteresis = cur_hysteresis_;
  return state;
}

void DynamicLossScaler::load_state(const LossScalerState& state) {
  LossScaler::load_state(state);
  cur_hysteresis_ = state.cur_hysteresis;
}

std::string DynamicLossScaler::describe(const LossScalerOptions& options) {
  std::ostringstream out;
  if (options.loss_scale > 0.0) {
    out << "DeepSpeed static LossScaler: loss scale " << options.loss_scale;
    return out.str();
  }
  out << "DeepSpeed DynamicLossScaler: initial 2^" << options.initial_scale_power << ", window "
      << options.loss_scale_window << ", hysteresis " << options.hysteresis
      << (options.consecutive_hysteresis ? " (refilled by every clean step)" : "") << ", min "
      << options.min_loss_scale << ", at the minimum: "
      << (options.raise_error_at_min_scale ? "stop the run" : "keep skipping");
  return out.str();
}

}  // namespace olv2
