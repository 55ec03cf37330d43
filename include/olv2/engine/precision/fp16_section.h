#pragma once
// The `fp16` section: DeepSpeed's loss-scaling keys, read from the YAML config and from a
// DeepSpeed JSON by the one schema and reader here.
#include <optional>
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/engine/precision/loss_scaler.h"

namespace olv2 {

// Each key absent is nullopt; what an absent key means depends on the loss scaler DeepSpeed
// picks (below).
struct Fp16Section {
  // DeepSpeed's default is off; a YAML `fp16` section enables fp16 unless it says false, as
  // mmcv's `fp16 = dict(...)` does.
  std::optional<bool> enabled;
  std::optional<double> loss_scale;            // 0: dynamic; > 0: this static scale
  std::optional<int64_t> initial_scale_power;  // dynamic scaling starts at 2^power
  std::optional<int64_t> loss_scale_window;    // clean steps before the scale doubles
  std::optional<int64_t> hysteresis;           // overflows tolerated before it halves
  std::optional<double> min_loss_scale;
  std::optional<bool> consecutive_hysteresis;  // every clean step refills the hysteresis
  // Ours: DeepSpeed stops a run that overflows at the minimum scale with no hysteresis left;
  // false keeps training at the minimum.
  std::optional<bool> raise_error_at_min_scale;

  static Schema schema();
  // Reads a section that schema() accepts.
  static Fp16Section from_config(const ConfigNode& section);

  // Whether the section names a key DeepSpeed's get_dynamic_loss_scale_args looks for
  // (`loss_scale` is not one).
  bool names_dynamic_scaling_key() const;
  // The keys given that FP16_Optimizer does not use (`fp16.<key>`).
  std::vector<std::string> keys_fp16_optimizer_ignores() const;

  // Each key given over DeepSpeed's dynamic-scaling defaults (2^16, window 1000, hysteresis 2,
  // min 1), which hold whether or not any key is given: the YAML section and FP16_Optimizer.
  LossScalerOptions loss_scaler_options() const;
  // What ZeRO's DynamicLossScaler gets: as loss_scaler_options() when the section names a
  // dynamic-scaling key; otherwise the class defaults DeepSpeed then constructs it with
  // (2^32, window 1000, hysteresis 1, min 1). `loss_scale` and `raise_error_at_min_scale`
  // apply either way.
  LossScalerOptions zero_loss_scaler_options() const;
};

}  // namespace olv2
