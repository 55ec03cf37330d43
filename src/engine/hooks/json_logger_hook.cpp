#include "olv2/engine/hooks/json_logger_hook.h"

#include "olv2/engine/logging/train_log.h"
#include "olv2/engine/train_context.h"
#include "olv2/solver/optimizer.h"

namespace olv2 {

void JsonLoggerHook::after_step(TrainContext& context) {
  if (!context.log_due) return;
  std::optional<double> scale;
  std::optional<int64_t> skipped;
  if (context.scaler != nullptr) {
    scale = context.scaler->scale();
    skipped = context.scaler->skipped_steps();
  }
  file_.write(train_record(
      context.epoch + 1, context.step.in_epoch + 1, group_lrs(*context.optimizer).front(),
      {context.memory_mb, context.memory_reserved_mb}, context.log_buffer, scale, skipped));
}

void JsonLoggerHook::write_validation(const TrainContext& context) {
  if (!context.validation) return;
  file_.write(val_record(context.validation->epoch, context.iteration,
                         group_lrs(*context.optimizer).front(),
                         headline_metrics(context.validation->metrics)));
}

}  // namespace olv2
