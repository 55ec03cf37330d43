#pragma once
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

namespace olv2 {

// DeepSpeed's fp16 loss-scaling settings (the `fp16` section keys), with
// DeepSpeed's values for a section that names at least one dynamic-scaling key.
struct LossScalerOptions {
  double loss_scale = 0.0;       // 0: dynamic; > 0: this static scale
  int initial_scale_power = 16;  // dynamic scaling starts at 2^initial_scale_power
  int64_t loss_scale_window = 1000;
  int hysteresis = 2;  // overflows tolerated before the scale is halved
  double min_loss_scale = 1.0;
  bool consecutive_hysteresis = false;  // true: every clean step refills the hysteresis
  // DeepSpeed's behaviour: an overflow at the minimum scale with no hysteresis
  // left stops the run. Not a DeepSpeed config key (its config path cannot
  // change it); ours.
  bool raise_error_at_min_scale = true;
  double scale_factor = 2.0;  // not configurable in DeepSpeed either
};

// What a checkpoint stores to continue the same scale sequence.
struct LossScalerState {
  double scale = 1.0;
  int64_t cur_iter = 0;
  int64_t last_overflow_iter = -1;
  int64_t cur_hysteresis = 1;
  int64_t skipped_steps = 0;
};

// DeepSpeed's DynamicLossScaler (deepspeed/runtime/fp16/loss_scaler.py): the
// loss is multiplied by scale() before backward; at the step boundary the
// gradients are unscaled and checked; on overflow the optimizer step is skipped
// (and the LR schedule not advanced) and update(true) lowers the scale, first
// using up the hysteresis; after loss_scale_window steps since the last
// overflow the scale doubles. A static scale never changes.
class DynamicLossScaler {
 public:
  explicit DynamicLossScaler(const LossScalerOptions& options);

  bool dynamic() const { return options_.loss_scale <= 0.0; }
  // The scale for the current step's backward.
  double scale() const { return scale_; }
  at::Tensor scale_loss(const at::Tensor& loss) const { return loss * scale_; }

  // Multiplies every defined gradient of `params` by 1/scale() in place and
  // returns whether any of them holds inf or nan. CUDA gradients go through
  // LibTorch's fused AMP kernel, others through plain tensor ops.
  bool unscale_and_check(const std::vector<at::Tensor>& params) const;

  // Ends a step: lowers the scale after an overflow, raises it after a clean
  // window. Throws a runtime error naming the step at an overflow at the
  // minimum scale with no hysteresis left when raise_error_at_min_scale is set.
  void update(bool overflow);

  int64_t skipped_steps() const { return skipped_steps_; }
  int64_t hysteresis_left() const { return cur_hysteresis_; }
  LossScalerState state() const;
  void load_state(const LossScalerState& state);
  // The settings in force, for the log.
  std::string describe() const;

 private:
  LossScalerOptions options_;
  double scale_;
  int64_t cur_iter_ = 0;
  int64_t last_overflow_iter_ = -1;
  int64_t cur_hysteresis_;
  int64_t skipped_steps_ = 0;
};

// Multiplies every defined gradient of `params` by `inv_scale` and returns
// whether any holds inf or nan (the scaler's unscale step, usable on its own).
bool unscale_gradients(const std::vector<at::Tensor>& params, double inv_scale);

}  // namespace olv2
