#include "olv2/engine/hooks/tensorboard_logger_hook.h"

#include "olv2/engine/logging/train_log.h"
#include "olv2/engine/train_context.h"

namespace olv2 {

void TensorboardLoggerHook::after_step(TrainContext& context) {
  if (!context.log_due) return;
  const int64_t step = context.iteration;
  for (const auto& [key, value] : context.log_buffer.output())
    writer_.add_scalar("train/" + key, value, step);
  writer_.add_scalar("train/lr", context.optimizer->lrs().front(), step);
  if (const LossScaler* scaler = context.optimizer->loss_scaler())
    writer_.add_scalar("train/loss_scale", scaler->scale(), step);
}

void TensorboardLoggerHook::write_validation(const TrainContext& context) {
  if (!context.validation) return;
  for (const auto& [key, value] : headline_metrics(context.validation->metrics))
    writer_.add_scalar("val/" + key, value, context.iteration);
}

Schema TensorboardLoggerHookOptions::schema() {
  return hook_schema("TensorboardLoggerHook", logger_hook_keys());
}

TensorboardLoggerHookOptions TensorboardLoggerHookOptions::from_config(const ConfigNode& section) {
  TensorboardLoggerHookOptions options;
  options.priority = read_hook_priority(section, HookPriority::kVeryLow);
  return options;
}

std::unique_ptr<Hook> TensorboardLoggerHookOptions::build(const HookSite& site) const {
  if (site.rank != 0) return nullptr;
  return std::make_unique<TensorboardLoggerHook>(site.work_dir / "tf_logs");
}

}  // namespace olv2
