#include "olv2/engine/hooks/json_logger_hook.h"

#include "olv2/engine/logging/train_log.h"
#include "olv2/engine/train_context.h"

namespace olv2 {

void JsonLoggerHook::after_step(TrainContext& context) {
  if (!context.log_due) return;
  std::optional<double> scale;
  std::optional<int64_t> skipped;
  if (const LossScaler* scaler = context.optimizer->loss_scaler()) {
    scale = scaler->scale();
    skipped = scaler->skipped_steps();
  }
  file_.write(train_record(
      context.epoch + 1, context.step.in_epoch + 1, context.optimizer->lrs().front(),
      {context.memory_mb, context.memory_reserved_mb}, context.log_buffer, scale, skipped));
}

void JsonLoggerHook::write_validation(const TrainContext& context) {
  if (!context.validation) return;
  file_.write(val_record(context.validation->epoch, context.iteration,
                         context.optimizer->lrs().front(),
                         headline_metrics(context.validation->metrics)));
}

Schema JsonLoggerHookOptions::schema() { return hook_schema("JsonLoggerHook"); }

JsonLoggerHookOptions JsonLoggerHookOptions::from_config(const ConfigNode& section) {
  JsonLoggerHookOptions options;
  options.priority = read_hook_priority(section, HookPriority::kVeryLow);
  return options;
}

std::unique_ptr<Hook> JsonLoggerHookOptions::build(const HookSite& site) const {
  if (site.rank != 0) return nullptr;
  return std::make_unique<JsonLoggerHook>(site.work_dir / (site.timestamp + ".log.json"));
}

}  // namespace olv2
