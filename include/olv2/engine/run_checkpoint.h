#pragma once
// A training run's state as a checkpoint.
#include <optional>

#include "olv2/engine/checkpoint/training_checkpoint.h"
#include "olv2/engine/train_context.h"

namespace olv2 {

// What the run's state is as a checkpoint: the model, optimizer, schedule, loss scaler, progress
// (an epoch-end save counts the epoch as done; a mid-epoch save resumes inside it), identity and
// every hook's state. A collective, since the optimizer's state may be sharded: every rank calls
// it; rank 0 gets the checkpoint, the other ranks nothing.
std::optional<TrainingCheckpoint> checkpoint_of(const TrainContext& context, bool epoch_done);

}  // namespace olv2
