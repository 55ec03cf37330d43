#include "olv2/engine/settings/auto_scale_lr.h"

#include <spdlog/fmt/fmt.h>

namespace olv2 {

Schema AutoScaleLrOptions::schema() {
  Schema schema = Schema::map();
  schema.optional("enable", Schema::boolean())
      .optional("base_batch_size", Schema::integer().range(1, 1e9).nullable());
  return schema;
}

AutoScaleLrOptions AutoScaleLrOptions::from_config(const ConfigNode& section) {
  AutoScaleLrOptions o;
  o.enable = section.get<bool>("enable", o.enable);
  const ConfigNode* base = section.find("base_batch_size");
  if (base != nullptr && !base->is_null()) o.base_batch_size = base->as_int();
  return o;
}

std::vector<std::string> apply_auto_scale_lr(TrainingSettings& settings,
                                             const AutoScaleLrOptions& options,
                                             int64_t world_size) {
  if (!options.enable) return {"Automatic scaling of learning rate (LR) has been disabled."};
  if (!options.base_batch_size) return {};
  const int64_t batch_size = world_size * settings.samples_per_gpu;
  std::vector<std::string> lines{
      fmt::format("Training with {} GPU(s) with {} samples per GPU. The total batch size is {}.",
                  world_size, settings.samples_per_gpu, batch_size)};
  const double lr = settings.solver.optimizer->lr;
  if (batch_size == *options.base_batch_size) {
    lines.push_back(
        fmt::format("The batch size match the base batch size: {}, will not scaling the LR ({}).",
                    *options.base_batch_size, lr));
    return lines;
  }
  const double factor =
      static_cast<double>(batch_size) / static_cast<double>(*options.base_batch_size);
  const double scaled = factor * lr;
  lines.push_back(fmt::format("LR has been automatically scaled from {} to {}", lr, scaled));
  std::shared_ptr<OptimizerOptions> optimizer = settings.solver.optimizer->copy();
  optimizer->lr = scaled;
  settings.solver.optimizer = std::move(optimizer);
  // DeepSpeed's schedules set lrs of their own, which scale too.
  if (const auto* deepspeed =
          dynamic_cast<const DeepSpeedScheduleOptions*>(settings.lr_schedule.get())) {
    std::string note;
    if (auto scaled_schedule = deepspeed->with_lrs_scaled(factor, note)) {
      lines.push_back(note);
      settings.lr_schedule = std::move(scaled_schedule);
    }
  }
  const SettingSource* before = settings.source_of("optimizer.lr");
  settings.record("optimizer.lr", fmt::format("{}", scaled),
                  fmt::format("auto_scale_lr: {} x {} / {} ({} <- {})", scaled / factor, batch_size,
                              *options.base_batch_size,
                              before ? before->value : fmt::format("{}", scaled / factor),
                              before ? before->source : std::string("default")));
  return lines;
}

}  // namespace olv2
