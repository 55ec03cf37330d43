#pragma once
// The state the training loop and its hooks share: the run's parts, where it stands, the step in
// progress and what is logged.
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "olv2/engine/checkpoint/training_checkpoint.h"
#include "olv2/engine/logging/log_buffer.h"
#include "olv2/engine/optimizer/training_optimizer.h"
#include "olv2/evaluation/evaluator.h"
#include "olv2/models/detectors/detector.h"
#include "olv2/solver/lr_scheduler.h"
#include "olv2/util/collective.h"

namespace olv2 {

class HookList;

// The optimizer step in progress: filled by the loop (losses, data time), the optimizer hook
// (outcome) and the timer hook (time).
struct StepState {
  int64_t in_epoch = 0;       // 0-based optimizer step within the epoch
  int64_t micro_batches = 0;  // micro-batches the step runs (the loss divisor)
  int64_t last_idx = 0;       // 0-based index of its last micro-batch within the epoch
  std::vector<std::pair<std::string, double>> terms;  // each loss term / micro_batches
  double loss = 0.0;
  double data_time = 0.0;  // seconds spent waiting for the step's batches
  double time = 0.0;       // seconds of the whole step, data included
  std::chrono::steady_clock::time_point start;
  StepOutcome outcome;
};

// The last validation, for the loggers of the same hook point.
struct ValidationRecord {
  int64_t epoch = 0;  // epochs trained before it
  EvaluationMetrics metrics;
};

// Everything the loop and its hooks share. The parts are owned by whoever builds the run
// (TrainingRun); the context only points at them.
struct TrainContext {
  DetectorImpl* model = nullptr;
  TrainingOptimizer* optimizer = nullptr;  // with the loss scaler and the gradient sync
  LrScheduler* scheduler = nullptr;
  Collective* collective = nullptr;  // null: one process
  const HookList* hooks = nullptr;   // the Trainer's: their states go into checkpoints
  c10::Device device = c10::Device(c10::kCPU);
  RunIdentity identity;
  std::string config_text;  // the resolved config, stored in checkpoints

  int64_t max_epochs = 1;
  int64_t micro_batches_per_epoch = 0;
  int64_t steps_per_epoch = 0;  // optimizer steps an epoch runs

  int64_t start_epoch = 0;
  int64_t epoch = 0;           // the epoch being trained, 0-based
  int64_t iteration = 0;       // optimizer steps taken, across epochs
  int64_t epoch_batches = 0;   // micro-batches of this epoch already trained
  int64_t epoch_position = 0;  // batch positions of this epoch's sampler order consumed
  StepState step;

  LogBuffer log_buffer;
  bool log_due = false;  // the buffer holds this interval's averages
  double eta_seconds = 0.0;
  int64_t memory_mb = 0;  // peak_memory_mb() when the interval's averages were taken
  std::optional<int64_t> memory_reserved_mb;  // peak_reserved_memory_mb() then
  std::optional<ValidationRecord> validation;
  // Set by a hook after an epoch (early stopping): the run ends there, on every rank.
  bool stop_training = false;
};

}  // namespace olv2
