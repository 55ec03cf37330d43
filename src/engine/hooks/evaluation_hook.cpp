#include "olv2/engine/hooks/evaluation_hook.h"

#include <ATen/ATen.h>

#include "olv2/engine/checkpoint/results_retention.h"
#include "olv2/engine/hooks/checkpoint_hook.h"
#include "olv2/engine/logging/train_log.h"
#include "olv2/engine/train_context.h"
#include "olv2/engine/validator.h"
#include "olv2/util/error.h"
#include "olv2/util/logging.h"

namespace olv2 {

namespace {

double headline_metric(const EvaluationMetrics& metrics, const std::string& name) {
  double score = 0.0;
  for (const auto& [metric, value] : headline_metrics(metrics)) {
    if (metric == name) score = value;
  }
  return score;
}

}  // namespace

EvaluationHook::EvaluationHook(EvaluationOptions options, const OpenLaneV2Dataset& dataset,
                               std::filesystem::path work_dir, int64_t workers,
                               FigureOptions figures)
    : options_(std::move(options)),
      dataset_(dataset),
      work_dir_(std::move(work_dir)),
      workers_(workers),
      figures_(figures) {}

void EvaluationHook::before_run(TrainContext& context) {
  const bool fresh = context.start_epoch == 0 && context.iteration == 0;
  if (options_.before_train && fresh) validate_now(context, 0);
}

void EvaluationHook::before_epoch(TrainContext& context) { context.validation.reset(); }

void EvaluationHook::after_epoch(TrainContext& context) {
  const int64_t done = context.epoch + 1;
  if (options_.interval <= 0) return;
  if (done % options_.interval == 0 || done == context.max_epochs) validate_now(context, done);
}

void EvaluationHook::validate_now(TrainContext& context, int64_t epochs_done) {
  ValidationOptions options;
  options.prediction.workers = workers_;
  options.prediction.device = context.device;
  options.prediction.collective = context.collective;
  options.results_file = results_file_of(work_dir_, epochs_done);
  options.metadata = options_.submission;
  options.metric_version = options_.metric_version;
  spdlog::info("validating {} frames (epoch {})", dataset_.size(), epochs_done);
  const std::optional<ValidationResult> result = validate(*context.model, dataset_, options);
  context.model->train();
  bool best = result && !options_.save_best.empty() && improves(context, result->metrics);
  if (context.zero != nullptr && !options_.save_best.empty()) {
    // The sharded optimizer state is gathered by every rank: rank 0's decision is shared.
    std::vector<at::Tensor> flag = {at::full({1}, best ? 1.0 : 0.0, at::kFloat)};
    context.collective->broadcast(flag, 0);
    best = flag[0].item<double>() > 0.0;
    if (best && !result) context.zero->gather_state();
  }
  if (!result) return;  // another rank's: rank 0 scores and logs
  spdlog::info("Epoch(val) [{}] results {}\n{}", epochs_done, options.results_file.string(),
               format_metrics_table(result->metrics));
  context.validation = ValidationRecord{epochs_done, result->metrics};
  if (best) save_best(context, epochs_done, result->metrics);
  std::optional<int64_t> best_epoch;
  if (context.best) best_epoch = context.best->epoch;
  remove_old_results(work_dir_, epochs_done, options_.keep_results, best_epoch);
  if (options_.visualize > 0) {
    const std::filesystem::path folder = work_dir_ / ("vis_epoch_" + std::to_string(epochs_done));
    const auto written =
        write_frame_figures(dataset_.index(), &result->predictions,
                            static_cast<size_t>(options_.visualize), figures_, folder);
    spdlog::info("Epoch(val) [{}] {} pictures in {}", epochs_done, written.size(), folder.string());
  }
}

bool EvaluationHook::improves(const TrainContext& context, const EvaluationMetrics& metrics) const {
  const std::string& metric = options_.save_best;
  if (context.best && context.best->metric != metric) {
    throw input_error("evaluation.save_best: the run's best so far is by " + context.best->metric +
                      ", this config asks for " + metric);
  }
  if (!context.best) return true;
  const double score = headline_metric(metrics, metric);
  const double best = context.best->score;
  return options_.greater_is_better ? score > best : score < best;
}

void EvaluationHook::save_best(TrainContext& context, int64_t epochs_done,
                               const EvaluationMetrics& metrics) {
  const std::string& metric = options_.save_best;
  const double score = headline_metric(metrics, metric);
  const std::optional<BestCheckpoint> previous = context.best;
  BestCheckpoint best;
  best.metric = metric;
  best.score = score;
  best.epoch = epochs_done;
  best.file = work_dir_ / ("best_" + metric + "_epoch_" + std::to_string(epochs_done) + ".pth");
  context.best = best;
  // After an epoch it is that epoch's end; before training, the start.
  save_training_checkpoint(best.file, checkpoint_of(context, epochs_done > context.epoch));
  if (previous && previous->file != best.file) {
    std::error_code ignored;
    std::filesystem::remove(previous->file, ignored);
  }
  spdlog::info("Now best checkpoint is saved as {}.", best.file.filename().string());
  spdlog::info("Best {} is {:.4f} at {} epoch.", metric, score, epochs_done);
}

}  // namespace olv2
