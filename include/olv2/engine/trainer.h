#pragma once
#include <c10/core/Device.h>

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/data/data_loader.h"
#include "olv2/data/dataset.h"
#include "olv2/engine/checkpoint_keeper.h"
#include "olv2/engine/json_log_file.h"
#include "olv2/engine/log_buffer.h"
#include "olv2/engine/loss_scaler.h"
#include "olv2/engine/train_options.h"
#include "olv2/engine/training_settings.h"
#include "olv2/models/detectors/detector.h"
#include "olv2/solver/lr_scheduler.h"
#include "olv2/solver/param_groups.h"

namespace torch::optim {
class Optimizer;
}

namespace olv2 {

class TensorboardWriter;

// The training and validation loop of `train_ds`: epochs of micro-batches, `accumulation`
// micro-batches per optimizer step (an iteration), checkpoints, exact resume, validation and
// the original trainer's log lines. Construction builds everything from the validated config.
class Trainer {
 public:
  Trainer(const ConfigNode& config, const TrainOptions& options);
  ~Trainer();

  // Trains to runner.max_epochs, validating and checkpointing as configured.
  void run();

 private:
  struct StepLog;

  void build_model();
  void build_data();
  void build_solver();
  void restore();
  void train_epoch(int64_t epoch);
  void forward_backward(const Batch& batch, int64_t micro_batches_in_step, StepLog& log);
  void finish_step(int64_t epoch, int64_t step_in_epoch, int64_t idx, StepLog& log);
  void log_interval(int64_t epoch, int64_t step_in_epoch, int64_t idx);
  void save_checkpoint(const std::string& name, int64_t epoch_batches);
  void run_validation(int64_t epochs_done);
  bool validation_due(int64_t epochs_done) const;

  ConfigNode config_;
  TrainOptions options_;
  c10::Device device_ = c10::Device(c10::kCPU);
  std::shared_ptr<DetectorImpl> model_;
  TrainingSettings settings_;
  int64_t max_epochs_ = 1;
  int64_t log_interval_ = 1;
  int64_t checkpoint_interval_ = 1;
  int64_t checkpoint_iter_interval_ = 0;
  int64_t evaluation_interval_ = 1;

  std::unique_ptr<OpenLaneV2Dataset> train_set_;
  std::unique_ptr<OpenLaneV2Dataset> val_set_;
  std::unique_ptr<DataLoader> loader_;
  int64_t micro_batches_per_epoch_ = 0;
  int64_t steps_per_epoch_ = 0;

  std::vector<ParamGroup> groups_;
  std::vector<at::Tensor> params_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::unique_ptr<LrScheduler> scheduler_;
  std::unique_ptr<DynamicLossScaler> scaler_;

  std::unique_ptr<CheckpointKeeper> checkpoints_;
  std::unique_ptr<JsonLogFile> json_log_;
  std::unique_ptr<TensorboardWriter> tensorboard_;
  LogBuffer buffer_;
  int64_t start_epoch_ = 0;
  int64_t current_epoch_ = 0;
  int64_t resume_epoch_batches_ = 0;
  int64_t iteration_ = 0;  // optimizer steps taken
  std::chrono::steady_clock::time_point run_start_;
  int64_t steps_this_run_ = 0;
};

}  // namespace olv2
