#include "olv2/engine/settings/training_settings.h"

#include <algorithm>
#include <functional>
#include <sstream>

#include "olv2/data/data_section.h"
#include "olv2/engine/precision/make_loss_scaler.h"
#include "olv2/solver/optimizer.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

std::string text(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

std::string yaml_source(const ConfigNode* node, const std::string& key) {
  if (node == nullptr) return "default (no `" + key + "` in the config)";
  return "config " + node->location().to_string() + " `" + key + "`";
}

const ConfigNode* child(const ConfigNode& node, const std::string& key) {
  const ConfigNode* found = node.find(key);
  return (found == nullptr || found->is_null()) ? nullptr : found;
}

std::string scaler_text(const PrecisionSettings& precision) {
  return describe_loss_scaler(precision.scaler_kind, precision.scaler);
}

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

std::string zero_note(int64_t stage, const std::string& file) {
  return "DeepSpeed ZeRO stage " + std::to_string(stage) + " (" + file +
         " zero_optimization.stage) with one process: nothing to shard, the optimizer runs "
         "unsharded; the stage only makes fp16 use ZeRO's DynamicLossScaler";
}

// DeepSpeed's choice for an fp16 section: FP16_Optimizer without ZeRO (wrapping
// FusedAdam, or torch's Adam through FP16_UnfusedOptimizer), ZeRO's
// DynamicLossScaler from stage 1 on.
void select_deepspeed_scaler(TrainingSettings& settings, const DeepSpeedConfig& json) {
  const Fp16Section& fp16 = *json.fp16;
  const int64_t stage = json.zero_stage.value_or(0);
  PrecisionSettings& precision = settings.precision;
  std::string source = json.file + " fp16";
  if (stage >= 1) {
    precision.scaler_kind = LossScalerKind::kDynamicLossScaler;
    precision.scaler = fp16.zero_loss_scaler_options();
    source += " with zero_optimization.stage " + std::to_string(stage) + ", over " +
              (fp16.names_dynamic_scaling_key()
                   ? "DeepSpeed's dynamic-scaling defaults"
                   : "DynamicLossScaler's class defaults (no dynamic-scaling key given)");
  } else {
    precision.scaler_kind = LossScalerKind::kFp16Optimizer;
    precision.scaler = fp16.loss_scaler_options();
    const bool unfused = json.optimizer && json.optimizer->torch_adam;
    if (unfused && !fp16.names_dynamic_scaling_key()) precision.scaler.min_loss_scale = 0.25;
    source += std::string(" without ZeRO (") +
              (unfused ? "optimizer.params.torch_adam: FP16_UnfusedOptimizer"
                       : "FusedAdam in FP16_Optimizer") +
              "), over DeepSpeed's dynamic-scaling defaults";
    const std::vector<std::string> ignored = fp16.keys_fp16_optimizer_ignores();
    if (!ignored.empty() && precision.fp16) {
      settings.notes.push_back(json.file + " " + joined(ignored) +
                               ": no effect, FP16_Optimizer has no hysteresis and never stops "
                               "at the minimum loss scale (ZeRO's DynamicLossScaler would use "
                               "them)");
    }
  }
  settings.record("loss scaler", scaler_text(precision), source);
}

// Records the optimizer's settings (its type aside), each key's from `source_of_key`.
void record_optimizer(TrainingSettings& settings,
                      const std::function<std::string(const std::string& key)>& source_of_key) {
  const OptimizerOptions& chosen = *settings.solver.optimizer;
  settings.record("optimizer.lr", text(chosen.lr), source_of_key("lr"));
  settings.record("optimizer.weight_decay", text(chosen.weight_decay),
                  source_of_key("weight_decay"));
  for (const auto& [key, values] : chosen.own_settings()) {
    std::string value;
    for (const double number : values) value += (value.empty() ? "" : ", ") + text(number);
    settings.record("optimizer." + key, value, source_of_key(key));
  }
  settings.record("optimizer.paramwise_cfg.custom_keys",
                  std::to_string(chosen.custom_keys.size()) + " key(s)",
                  source_of_key("paramwise_cfg"));
}

}  // namespace

void TrainingSettings::record(const std::string& setting, const std::string& value,
                              const std::string& source) {
  for (SettingSource& entry : sources) {
    if (entry.setting == setting) {
      entry.value = value;
      entry.source = source;
      return;
    }
  }
  sources.push_back({setting, value, source});
}

void TrainingSettings::forget(const std::string& setting) {
  sources.erase(
      std::remove_if(sources.begin(), sources.end(),
                     [&](const SettingSource& entry) { return entry.setting == setting; }),
      sources.end());
}

const SettingSource* TrainingSettings::source_of(const std::string& setting) const {
  for (const SettingSource& entry : sources) {
    if (entry.setting == setting) return &entry;
  }
  return nullptr;
}

TrainingSettings training_settings_from_config(const ConfigNode& root) {
  TrainingSettings settings;
  const ConfigNode& optimizer = root.at("optimizer");
  const ConfigNode* optimizer_config = child(root, "optimizer_config");
  settings.solver = SolverOptions::from_config(optimizer, optimizer_config);
  settings.record("optimizer.type", settings.solver.optimizer->type,
                  yaml_source(&optimizer, "optimizer"));
  record_optimizer(settings, [&](const std::string& key) {
    return yaml_source(child(optimizer, key), "optimizer." + key);
  });
  const ConfigNode* clip = optimizer_config ? child(*optimizer_config, "grad_clip") : nullptr;
  settings.record("grad_clip.max_norm",
                  settings.solver.grad_clip ? text(settings.solver.grad_clip->max_norm) : "off",
                  yaml_source(clip, "optimizer_config.grad_clip"));

  const ConfigNode& lr_config = root.at("lr_config");
  settings.lr_schedule = lr_schedule_registry().read(lr_config);
  settings.record("lr schedule", "mmcv " + lr_config.at("policy").as_string(),
                  yaml_source(&lr_config, "lr_config"));

  const ConfigNode& data = root.at("data");
  const DataSection data_section = DataSection::from_config(data);
  settings.samples_per_gpu = data_section.samples_per_gpu;
  settings.accumulation_steps = data_section.gradient_accumulation_steps;
  settings.record("samples_per_gpu", std::to_string(settings.samples_per_gpu),
                  yaml_source(child(data, "samples_per_gpu"), "data.samples_per_gpu"));
  settings.record(
      "gradient_accumulation_steps", std::to_string(settings.accumulation_steps),
      yaml_source(child(data, "gradient_accumulation_steps"), "data.gradient_accumulation_steps"));

  Fp16Section fp16;
  const ConfigNode* fp16_node = child(root, "fp16");
  if (fp16_node != nullptr) fp16 = Fp16Section::from_config(*fp16_node);
  settings.precision.fp16 = fp16_node != nullptr && fp16.enabled.value_or(true);
  settings.precision.scaler = fp16.loss_scaler_options();
  const ConfigNode* bf16 = child(root, "bf16");
  settings.precision.bf16 = bf16 != nullptr && bf16->get<bool>("enabled", false);
  settings.record("fp16", settings.precision.fp16 ? "on" : "off",
                  yaml_source(child(root, "fp16"), "fp16"));
  settings.record("bf16", settings.precision.bf16 ? "on" : "off", yaml_source(bf16, "bf16"));
  settings.record("loss scaler", scaler_text(settings.precision),
                  yaml_source(child(root, "fp16"), "fp16") + " over DeepSpeed's defaults");
  return settings;
}

TrainingSettings apply_deepspeed_config(TrainingSettings settings, const DeepSpeedConfig& json,
                                        int64_t world_size) {
  const std::string from = json.file + " ";
  if (json.optimizer) {
    const DeepSpeedOptimizer& optimizer = *json.optimizer;
    const TrainingSettings before = settings;
    settings.solver.optimizer_section = optimizer.laid_over(settings.solver.optimizer_section);
    settings.solver.optimizer = optimizer_registry().read(settings.solver.optimizer_section);
    const auto own_keys = [](const OptimizerOptions& options) {
      std::vector<std::string> keys;
      for (const auto& [key, values] : options.own_settings()) keys.push_back(key);
      return keys;
    };
    const std::vector<std::string> kept = own_keys(*settings.solver.optimizer);
    for (const std::string& key : own_keys(*before.solver.optimizer)) {
      if (std::find(kept.begin(), kept.end(), key) == kept.end())
        settings.forget("optimizer." + key);
    }
    settings.record("optimizer.type",
                    optimizer.type() + (optimizer.written_type == optimizer.type()
                                            ? ""
                                            : " (DeepSpeed `" + optimizer.written_type + "`)"),
                    from + "optimizer.type");
    record_optimizer(settings, [&](const std::string& key) {
      if (optimizer.keys.has(key)) return from + "optimizer.params." + key;
      const SettingSource* earlier = before.source_of("optimizer." + key);
      return earlier != nullptr ? earlier->source : yaml_source(nullptr, "optimizer." + key);
    });
  }
  if (json.scheduler) {
    settings.lr_schedule = json.scheduler;
    settings.record("lr schedule", json.scheduler->describe(), from + "scheduler");
  }
  if (json.gradient_clipping) {
    if (*json.gradient_clipping > 0.0) {
      GradClipOptions clip = settings.solver.grad_clip.value_or(GradClipOptions{});
      clip.max_norm = *json.gradient_clipping;
      settings.solver.grad_clip = clip;
    } else {
      settings.solver.grad_clip.reset();
    }
    settings.record("grad_clip.max_norm",
                    settings.solver.grad_clip ? text(settings.solver.grad_clip->max_norm) : "off",
                    from + "gradient_clipping");
  }
  if (const std::optional<BatchSizes> batch = resolve_batch_sizes(json, world_size)) {
    settings.samples_per_gpu = batch->micro_batch_per_gpu;
    settings.accumulation_steps = batch->accumulation_steps;
    const std::string source =
        from + "batch keys (" + batch->how + ", world size " + std::to_string(world_size) + ")";
    settings.record("samples_per_gpu", std::to_string(settings.samples_per_gpu), source);
    settings.record("gradient_accumulation_steps", std::to_string(settings.accumulation_steps),
                    source);
  }
  if (json.zero_stage) {
    settings.record("zero_optimization.stage", std::to_string(*json.zero_stage),
                    from + "zero_optimization.stage");
    settings.zero_stage = *json.zero_stage;
    if (*json.zero_stage >= 1 && world_size == 1)
      settings.notes.push_back(zero_note(*json.zero_stage, json.file));
  }
  if (json.fp16) {
    if (json.fp16->enabled) settings.precision.fp16 = *json.fp16->enabled;
    settings.record("fp16", settings.precision.fp16 ? "on" : "off", from + "fp16.enabled");
    select_deepspeed_scaler(settings, json);
  }
  if (json.bf16_enabled) {
    settings.precision.bf16 = *json.bf16_enabled;
    settings.record("bf16", settings.precision.bf16 ? "on" : "off", from + "bf16.enabled");
  }
  return settings;
}

TrainingSettings apply_command_line(TrainingSettings settings, bool use_fp16) {
  if (use_fp16) {
    settings.precision.fp16 = true;
    settings.record("fp16", "on", "command line --use-fp16");
  }
  return settings;
}

std::unique_ptr<LrScheduler> build_lr_scheduler(const TrainingSettings& settings,
                                                const std::vector<ParamGroup>& groups,
                                                int64_t max_epochs, int64_t iters_per_epoch) {
  if (!settings.lr_schedule) throw input_error("no learning-rate schedule configured (lr_config)");
  return settings.lr_schedule->build(groups, max_epochs, iters_per_epoch);
}

}  // namespace olv2
