#pragma once
// One `train_ds` run assembled from its settings (model, data, solver, resumed state, hooks) and
// handed to the training loop.
#include <c10/core/Device.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "olv2/data/data_loader.h"
#include "olv2/data/dataset.h"
#include "olv2/engine/hooks/hook.h"
#include "olv2/engine/hooks/hook_list.h"
#include "olv2/engine/optimizer/training_optimizer.h"
#include "olv2/engine/precision/precision.h"
#include "olv2/engine/settings/engine_options.h"
#include "olv2/engine/settings/run_settings.h"
#include "olv2/engine/settings/train_options.h"
#include "olv2/engine/settings/training_settings.h"
#include "olv2/engine/train_context.h"
#include "olv2/solver/param_groups.h"
#include "olv2/util/collective.h"
#include "olv2/visualization/frame_figure.h"

namespace olv2 {

// Where a run writes: its work dir and the timestamp its `.log` and `.log.json` share.
struct RunFiles {
  std::filesystem::path work_dir;
  std::string timestamp;
};

// One `train_ds` run, built from its settings (read once from the config and the command line,
// run_settings.h): the model (through
// the type-name registry), the data, the solver, the loss scaler, a resumed checkpoint's state
// or loaded weights, and the hooks by priority (LR schedule, optimizer step, evaluation,
// checkpoints, `custom_hooks`, timer, loggers). run() hands them to the Trainer loop. Under several
// ranks every rank reads its own shard, starts from rank 0's parameters and buffers, averages
// gradients at each step boundary and validates its share; only rank 0 writes checkpoints,
// JSON lines and TensorBoard events.
class TrainingRun {
 public:
  // Trains on `device`; `collective` (the ranks of the run; one process:
  // SingleProcessCollective) must outlive it.
  TrainingRun(RunSettings run, const TrainOptions& options, RunFiles files, c10::Device device,
              Collective& collective);
  ~TrainingRun();

  // `observers` run after the run's own hooks at every hook point (e.g. a benchmark's probe).
  void run(std::vector<std::unique_ptr<Hook>> observers = {});

 private:
  void build_model(const DetectorOptions& options, const std::string& type);
  void build_data(const DatasetSpec& train, const std::optional<DatasetSpec>& val);
  void build_solver();
  // The replicated optimizer (one process, or all-reduced gradients) or ZeRO's.
  void build_optimizer(std::unique_ptr<LossScaler> scaler);
  void restore();
  void load_weights(const std::string& path);
  HookList build_hooks() const;

  EngineOptions engine_;
  TrainingSettings settings_;
  RunFiles files_;
  Collective& collective_;
  std::filesystem::path resume_path_;  // empty: a fresh run
  std::optional<TrainingCheckpoint> resumed_;
  FigureOptions figures_;  // for `evaluation.visualize`

  std::shared_ptr<DetectorImpl> model_;
  std::unique_ptr<OpenLaneV2Dataset> train_set_;
  std::unique_ptr<OpenLaneV2Dataset> val_set_;
  std::unique_ptr<DataLoader> loader_;
  std::vector<ParamGroup> groups_;
  std::unique_ptr<TrainingOptimizer> optimizer_;
  std::unique_ptr<LrScheduler> scheduler_;
  std::optional<AutocastState> autocast_;  // the forward's, under mixed precision
  TrainContext context_;
};

}  // namespace olv2
