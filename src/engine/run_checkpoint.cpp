#include "olv2/engine/run_checkpoint.h"

#include "olv2/engine/hooks/hook_list.h"

namespace olv2 {

std::optional<TrainingCheckpoint> checkpoint_of(const TrainContext& context, bool epoch_done) {
  std::optional<PthValue> optimizer = context.optimizer->state();
  if (!optimizer) return std::nullopt;
  TrainingCheckpoint checkpoint;
  checkpoint.state_dict = module_state_dict(*context.model);
  checkpoint.optimizer = std::move(*optimizer);
  checkpoint.scheduler = context.scheduler->state();
  if (const LossScaler* scaler = context.optimizer->loss_scaler()) {
    checkpoint.loss_scaler = scaler->state();
  }
  checkpoint.progress.epoch = epoch_done ? context.epoch + 1 : context.epoch;
  checkpoint.progress.epoch_batches = epoch_done ? 0 : context.epoch_batches;
  checkpoint.progress.epoch_position = epoch_done ? 0 : context.epoch_position;
  checkpoint.progress.iteration = context.iteration;
  checkpoint.identity = context.identity;
  checkpoint.config_text = context.config_text;
  if (context.hooks != nullptr) checkpoint.hook_msgs = context.hooks->states();
  return checkpoint;
}

}  // namespace olv2
