#include "olv2/engine/precision/fp16_section.h"

namespace olv2 {

namespace {

const ConfigNode* given(const ConfigNode& section, const std::string& key) {
  const ConfigNode* value = section.find(key);
  return (value == nullptr || value->is_null()) ? nullptr : value;
}

}  // namespace

Schema Fp16Section::schema() {
  return Schema::map()
      .optional("enabled", Schema::boolean())
      .optional("loss_scale", Schema::number().range(0.0, 1e30))
      .optional("initial_scale_power", Schema::integer().range(0, 127))
      .optional("loss_scale_window", Schema::integer().range(1, 1e12))
      .optional("hysteresis", Schema::integer().range(1, 1e12))
      .optional("consecutive_hysteresis", Schema::boolean())
      .optional("min_loss_scale", Schema::number().range(0.0, 1e30))
      .optional("raise_error_at_min_scale", Schema::boolean());
}

Fp16Section Fp16Section::from_config(const ConfigNode& section) {
  Fp16Section fp16;
  if (const ConfigNode* v = given(section, "enabled")) fp16.enabled = v->as_bool();
  if (const ConfigNode* v = given(section, "loss_scale")) fp16.loss_scale = v->as_double();
  if (const ConfigNode* v = given(section, "initial_scale_power"))
    fp16.initial_scale_power = v->as_int();
  if (const ConfigNode* v = given(section, "loss_scale_window"))
    fp16.loss_scale_window = v->as_int();
  if (const ConfigNode* v = given(section, "hysteresis")) fp16.hysteresis = v->as_int();
  if (const ConfigNode* v = given(section, "min_loss_scale")) fp16.min_loss_scale = v->as_double();
  if (const ConfigNode* v = given(section, "consecutive_hysteresis"))
    fp16.consecutive_hysteresis = v->as_bool();
  if (const ConfigNode* v = given(section, "raise_error_at_min_scale"))
    fp16.raise_error_at_min_scale = v->as_bool();
  return fp16;
}

bool Fp16Section::names_dynamic_scaling_key() const {
  return initial_scale_power || loss_scale_window || min_loss_scale || hysteresis ||
         consecutive_hysteresis;
}

std::vector<std::string> Fp16Section::keys_fp16_optimizer_ignores() const {
  std::vector<std::string> keys;
  if (hysteresis) keys.push_back("fp16.hysteresis");
  if (consecutive_hysteresis) keys.push_back("fp16.consecutive_hysteresis");
  if (raise_error_at_min_scale) keys.push_back("fp16.raise_error_at_min_scale");
  return keys;
}

LossScalerOptions Fp16Section::loss_scaler_options() const {
  LossScalerOptions options;
  options.loss_scale = loss_scale.value_or(options.loss_scale);
  options.initial_scale_power =
      static_cast<int>(initial_scale_power.value_or(options.initial_scale_power));
  options.loss_scale_window = loss_scale_window.value_or(options.loss_scale_window);
  options.hysteresis = static_cast<int>(hysteresis.value_or(options.hysteresis));
  options.min_loss_scale = min_loss_scale.value_or(options.min_loss_scale);
  options.consecutive_hysteresis = consecutive_hysteresis.value_or(options.consecutive_hysteresis);
  options.raise_error_at_min_scale =
      raise_error_at_min_scale.value_or(options.raise_error_at_min_scale);
  return options;
}

LossScalerOptions Fp16Section::zero_loss_scaler_options() const {
  if (names_dynamic_scaling_key()) return loss_scaler_options();
  LossScalerOptions options;
  options.initial_scale_power = 32;
  options.hysteresis = 1;
  options.loss_scale = loss_scale.value_or(options.loss_scale);
  options.raise_error_at_min_scale =
      raise_error_at_min_scale.value_or(options.raise_error_at_min_scale);
  return options;
}

}  // namespace olv2
