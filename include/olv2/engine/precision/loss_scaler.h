#pragma once
// Loss scaling for fp16 training: DeepSpeed's settings, the scaler interface the optimizer step
// uses, and its checkpointed state.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>
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

// Which of DeepSpeed's two fp16 scaling rules runs. DeepSpeed picks it by the
// optimizer wrapper: FP16_Optimizer without ZeRO, DynamicLossScaler under ZeRO.
enum class LossScalerKind {
  kDynamicLossScaler,  // deepspeed/runtime/fp16/loss_scaler.py
  kFp16Optimizer,      // FP16_Optimizer._update_scale (fused_optimizer.py)
};

// "DynamicLossScaler" or "FP16_Optimizer": the checkpoint tag and the name in messages.
std::string loss_scaler_kind_name(LossScalerKind kind);
std::optional<LossScalerKind> loss_scaler_kind_from_name(const std::string& name);

// What a checkpoint stores to continue the same scale sequence.
struct LossScalerState {
  double scale = 1.0;
  int64_t cur_iter = 0;
  int64_t last_overflow_iter = -1;
  int64_t cur_hysteresis = 1;  // DynamicLossScaler only
  int64_t skipped_steps = 0;
  LossScalerKind kind = LossScalerKind::kDynamicLossScaler;
};

// A loss scaler as the optimizer step uses it: the loss is multiplied by
// scale() before backward; at the step boundary the gradients are unscaled and
// checked; on overflow the optimizer step is skipped (and the LR schedule not
// advanced); update() then moves the scale by the scaler's rule. A static
// scale (loss_scale > 0) never changes, but overflow steps are still skipped.
// The scale, the step counters and the settings are common to both rules and kept here.
class LossScaler {
 public:
  virtual ~LossScaler() = default;

  virtual LossScalerKind kind() const = 0;
  bool dynamic() const { return options_.loss_scale <= 0.0; }
  // The scale for the current step's backward.
  double scale() const { return scale_; }
  at::Tensor scale_loss(const at::Tensor& loss) const { return loss.mul(scale()); }

  // Multiplies every defined gradient of `params` by 1/scale() in place and
  // returns whether any of them holds inf or nan.
  bool unscale_and_check(const std::vector<at::Tensor>& params) const;

  // Ends a step with or without a gradient overflow.
  virtual void update(bool overflow) = 0;

  int64_t skipped_steps() const { return skipped_steps_; }
  virtual LossScalerState state() const;
  // Throws an input error when `state` was written by the other kind of scaler.
  virtual void load_state(const LossScalerState& state);
  // One line for the log naming the DeepSpeed scaler that runs and its settings.
  virtual std::string describe() const = 0;

 protected:
  // Starts at loss_scale, or at 2^initial_scale_power when dynamic; throws an input error
  // naming the `fp16` key of a setting out of range.
  explicit LossScaler(const LossScalerOptions& options);

  LossScalerOptions options_;
  double scale_;
  int64_t cur_iter_ = 0;
  int64_t last_overflow_iter_ = -1;
  int64_t skipped_steps_ = 0;
};

// Multiplies every defined gradient of `params` by `inv_scale` and returns
// whether any holds inf or nan (the scaler's unscale step, usable on its own).
// CUDA gradients go through LibTorch's fused AMP kernel, others through plain
// tensor ops.
bool unscale_gradients(const std::vector<at::Tensor>& params, double inv_scale);

}  // namespace olv2
