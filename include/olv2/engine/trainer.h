#pragma once
// The training loop: epochs of optimizer steps over micro-batches, every other concern in a hook.
#include <memory>
#include <vector>

#include "olv2/data/batch.h"
#include "olv2/data/data_loader.h"
#include "olv2/engine/hooks/hook.h"
#include "olv2/engine/hooks/hook_list.h"
#include "olv2/engine/train_context.h"
#include "olv2/util/autocast_guard.h"

namespace olv2 {

// How a micro-batch's forward runs.
struct TrainStepOptions {
  std::optional<AutocastState> autocast;  // set under mixed precision
  uint64_t seed = 0;                      // model randomness of step i derives from (seed, i)
};

// The training loop, detectron2's SimpleTrainer in shape: epochs of optimizer steps, each of
// `accumulation` micro-batches (forward, loss / micro-batches, backward), with every other
// concern in a hook (run in the order of their priorities). `context.start_epoch`, `iteration`,
// `epoch_batches` and `epoch_position` say where to start (a resumed run starts inside an epoch). A
// SIGINT or SIGTERM stops the run at the next step boundary, on every rank; `context.stop_training`
// set by a hook after an epoch ends the run there.
class Trainer {
 public:
  Trainer(TrainContext& context, DataLoader& loader, TrainStepOptions options, HookList hooks);

  void run();

 private:
  void run_epoch();
  void run_step(std::optional<Batch> batch);
  // `last`: the step's last micro-batch, whose backward the gradient sync communicates.
  void run_micro_batch(const Batch& batch, bool last);
  // Ends the run with status 128 + signal after a SIGINT or SIGTERM on any rank.
  void stop_if_requested();

  TrainContext& context_;
  DataLoader& loader_;
  TrainStepOptions options_;
  HookList hooks_;
};

}  // namespace olv2
