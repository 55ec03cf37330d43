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

}  // namespace olv2
