#include "olv2/engine/hooks/evaluation_hook.h"

#include "olv2/engine/train_context.h"
#include "olv2/engine/validator.h"
#include "olv2/util/logging.h"

namespace olv2 {

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
  options.workers = workers_;
  options.device = context.device;
  options.results_file = work_dir_ / ("results_epoch_" + std::to_string(epochs_done) + ".json");
  options.collective = context.collective;
  options.metadata = options_.submission;
  spdlog::info("validating {} frames (epoch {})", dataset_.size(), epochs_done);
  const std::optional<ValidationResult> result = validate(*context.model, dataset_, options);
  context.model->train();
  if (!result) return;  // another rank's: rank 0 scores and logs
  spdlog::info("Epoch(val) [{}] results {}\n{}", epochs_done, options.results_file.string(),
               format_metrics_table(result->metrics));
  context.validation = ValidationRecord{epochs_done, result->metrics};
  if (options_.visualize > 0) {
    const std::filesystem::path folder = work_dir_ / ("vis_epoch_" + std::to_string(epochs_done));
    const auto written =
        write_frame_figures(dataset_.index(), &result->predictions,
                            static_cast<size_t>(options_.visualize), figures_, folder);
    spdlog::info("Epoch(val) [{}] {} pictures in {}", epochs_done, written.size(), folder.string());
  }
}

}  // namespace olv2
