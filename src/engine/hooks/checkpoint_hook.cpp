#include "olv2/engine/hooks/checkpoint_hook.h"

#include "olv2/engine/checkpoint/optimizer_state.h"
#include "olv2/engine/train_context.h"
#include "olv2/util/logging.h"

namespace olv2 {

CheckpointHook::CheckpointHook(CheckpointOptions options, const std::filesystem::path& work_dir,
                               bool writes)
    : options_(options), keeper_(work_dir, options.max_keep), writes_(writes) {}

void CheckpointHook::after_step(TrainContext& context) {
  const int64_t every = options_.iter_interval;
  if (every > 0 && context.iteration % every == 0) {
    save(context, "iter", context.iteration, every, /*epoch_done=*/false);
  }
}

void CheckpointHook::after_epoch(TrainContext& context) {
  const int64_t done = context.epoch + 1;
  const int64_t every = options_.interval;
  if (every > 0 && (done % every == 0 || done == context.max_epochs)) {
    save(context, "epoch", done, every, /*epoch_done=*/true);
  }
}

TrainingCheckpoint checkpoint_of(const TrainContext& context, bool epoch_done) {
  TrainingCheckpoint checkpoint;
  checkpoint.state_dict = module_state_dict(*context.model);
  if (context.zero != nullptr) {
    checkpoint.optimizer = context.zero->gather_state().value_or(PthValue());
  } else {
    checkpoint.optimizer = adam_state_to_pth(*context.optimizer);
  }
  checkpoint.scheduler = context.scheduler->state();
  if (context.scaler != nullptr) checkpoint.loss_scaler = context.scaler->state();
  // An epoch-end save counts the epoch as done; a mid-epoch save resumes inside it.
  checkpoint.progress.epoch = epoch_done ? context.epoch + 1 : context.epoch;
  checkpoint.progress.epoch_batches = epoch_done ? 0 : context.epoch_batches;
  checkpoint.progress.epoch_position = epoch_done ? 0 : context.epoch_position;
  checkpoint.progress.iteration = context.iteration;
  checkpoint.identity = context.identity;
  checkpoint.config_text = context.config_text;
  checkpoint.best = context.best;
  return checkpoint;
}

void CheckpointHook::save(const TrainContext& context, const std::string& series, int64_t number,
                          int64_t interval, bool epoch_done) {
  if (!writes_) {
    if (context.zero != nullptr) context.zero->gather_state();
    return;
  }
  const std::filesystem::path path =
      keeper_.save(series, number, interval, checkpoint_of(context, epoch_done));
  spdlog::info("saved checkpoint {}", path.string());
}

}  // namespace olv2
