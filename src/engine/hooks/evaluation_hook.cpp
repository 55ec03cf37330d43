#include "olv2/engine/hooks/evaluation_hook.h"

#include <ATen/ATen.h>

#include "olv2/data/pipeline_schema.h"
#include "olv2/engine/checkpoint/results_retention.h"
#include "olv2/engine/logging/train_log.h"
#include "olv2/engine/run_checkpoint.h"
#include "olv2/engine/train_context.h"
#include "olv2/engine/validator.h"
#include "olv2/util/error.h"
#include "olv2/util/logging.h"

namespace olv2 {

Schema EvaluationOptions::schema() {
  return Schema::map()
      .optional("interval", Schema::integer().range(0, 1e9))
      .optional("before_train", Schema::boolean())
      .optional("visualize", Schema::integer().range(0, 1e9))
      .optional("save_best", Schema::string().choices(metric_names()).nullable())
      .optional("rule", Schema::string().choices({"greater", "less"}))
      .optional("keep_results", Schema::integer())
      .optional("metric_version", Schema::string().choices({"v1.1", "v1.0"}))
      .optional("pipeline", pipeline_schema());
}

EvaluationOptions EvaluationOptions::from_config(const ConfigNode* evaluation,
                                                 const ConfigNode* submission) {
  EvaluationOptions out;
  out.submission = SubmissionMetadata::from_config(submission);
  if (evaluation == nullptr) return out;
  out.interval = evaluation->get<int64_t>("interval", out.interval);
  out.before_train = evaluation->get<bool>("before_train", out.before_train);
  out.visualize = evaluation->get<int64_t>("visualize", out.visualize);
  out.save_best = evaluation->get<std::string>("save_best", out.save_best);
  out.greater_is_better = evaluation->get<std::string>("rule", "greater") == "greater";
  out.keep_results = evaluation->get<int64_t>("keep_results", out.keep_results);
  if (const ConfigNode* version = evaluation->find("metric_version")) {
    out.metric_version = metric_version_from_string(version->as_string(), version->where());
  }
  return out;
}

Schema EvalHookOptions::schema() {
  Schema keys = EvaluationOptions::schema();
  keys.optional("submission", SubmissionMetadata::schema());
  return hook_schema("EvalHook", keys);
}

EvalHookOptions EvalHookOptions::from_config(const ConfigNode& section) {
  EvalHookOptions options;
  options.priority = read_hook_priority(section, HookPriority::kAboveNormal);
  options.evaluation = EvaluationOptions::from_config(&section, section.find("submission"));
  return options;
}

std::unique_ptr<Hook> EvalHookOptions::build(const HookSite& site) const {
  if (site.val_set == nullptr) return nullptr;
  return std::make_unique<EvaluationHook>(evaluation, *site.val_set, site.work_dir,
                                          site.workers_per_gpu, site.figures);
}

std::optional<BestCheckpoint> best_checkpoint_of(const PthValue& hook_msgs) {
  const PthValue* metric = hook_msgs.find("best_metric");
  if (metric == nullptr) return std::nullopt;
  try {
    BestCheckpoint best;
    best.metric = metric->as_string();
    best.score = hook_msgs.at("best_score").as_float();
    best.epoch = hook_msgs.at("best_epoch").as_int();
    best.file = hook_msgs.at("best_ckpt").as_string();
    return best;
  } catch (const Error& error) {
    throw input_error(std::string("meta.hook_msgs: the best validation: ") + error.what());
  }
}

EvaluationHook::EvaluationHook(EvaluationOptions options, const OpenLaneV2Dataset& dataset,
                               std::filesystem::path work_dir, int64_t workers,
                               FigureOptions figures)
    : options_(std::move(options)),
      dataset_(dataset),
      work_dir_(std::move(work_dir)),
      workers_(workers),
      figures_(figures) {
  if (!options_.save_best.empty()) {
    require_metric_of(dataset_.index().options().kind, options_.save_best, "evaluation.save_best");
  }
}

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
  bool best = result && !options_.save_best.empty() && improves(result->metrics);
  if (context.collective != nullptr && !options_.save_best.empty()) {
    // Every rank takes part in a checkpoint (the optimizer state may be sharded).
    best = rank_zero_decision(*context.collective, best);
  }
  if (!result) {  // another rank's: rank 0 scores, logs and writes
    if (best) checkpoint_of(context, epochs_done > context.epoch);
    return;
  }
  spdlog::info("Epoch(val) [{}] results {}\n{}", epochs_done, options.results_file.string(),
               format_metrics_table(result->metrics));
  context.validation = ValidationRecord{epochs_done, result->metrics};
  if (best) save_best(context, epochs_done, result->metrics);
  std::optional<int64_t> best_epoch;
  if (best_) best_epoch = best_->epoch;
  remove_old_results(work_dir_, epochs_done, options_.keep_results, best_epoch);
  if (options_.visualize > 0) {
    const std::filesystem::path folder = work_dir_ / ("vis_epoch_" + std::to_string(epochs_done));
    const auto written =
        write_frame_figures(dataset_.index(), &result->predictions,
                            static_cast<size_t>(options_.visualize), figures_, folder);
    spdlog::info("Epoch(val) [{}] {} pictures in {}", epochs_done, written.size(), folder.string());
  }
}

bool EvaluationHook::improves(const EvaluationMetrics& metrics) const {
  const std::string& metric = options_.save_best;
  if (best_ && best_->metric != metric) {
    throw input_error("evaluation.save_best: the run's best so far is by " + best_->metric +
                      ", this config asks for " + metric);
  }
  if (!best_) return true;
  const double score = headline_metric(metrics, metric, "evaluation.save_best");
  const double best = best_->score;
  return options_.greater_is_better ? score > best : score < best;
}

void EvaluationHook::save_best(TrainContext& context, int64_t epochs_done,
                               const EvaluationMetrics& metrics) {
  const std::string& metric = options_.save_best;
  const double score = headline_metric(metrics, metric, "evaluation.save_best");
  const std::optional<BestCheckpoint> previous = best_;
  BestCheckpoint best;
  best.metric = metric;
  best.score = score;
  best.epoch = epochs_done;
  best.file = work_dir_ / ("best_" + metric + "_epoch_" + std::to_string(epochs_done) + ".pth");
  best_ = best;
  // After an epoch it is that epoch's end; before training, the start.
  const std::optional<TrainingCheckpoint> checkpoint =
      checkpoint_of(context, epochs_done > context.epoch);
  if (!checkpoint) return;
  save_training_checkpoint(best.file, *checkpoint);
  if (previous && previous->file != best.file) {
    std::error_code ignored;
    std::filesystem::remove(previous->file, ignored);
  }
  spdlog::info("Now best checkpoint is saved as {}.", best.file.filename().string());
  spdlog::info("Best {} is {:.4f} at {} epoch.", metric, score, epochs_done);
}

std::optional<PthValue> EvaluationHook::state() const {
  if (!best_) return std::nullopt;
  PthValue hook_msgs = PthValue::dict();
  hook_msgs.set("best_score", PthValue::from_float(best_->score));
  hook_msgs.set("best_ckpt", PthValue::from_string(best_->file.string()));
  hook_msgs.set("best_metric", PthValue::from_string(best_->metric));
  hook_msgs.set("best_epoch", PthValue::from_int(best_->epoch));
  return hook_msgs;
}

void EvaluationHook::load_state(const PthValue& hook_msgs) {
  best_ = best_checkpoint_of(hook_msgs);
}

}  // namespace olv2
