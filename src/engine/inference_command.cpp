#include "olv2/engine/inference_command.h"

#include <filesystem>

#include "olv2/data/dataset_builder.h"
#include "olv2/engine/checkpoint/training_checkpoint.h"
#include "olv2/engine/distributed/launched_process.h"
#include "olv2/engine/precision/precision.h"
#include "olv2/engine/settings/engine_options.h"
#include "olv2/engine/settings/train_config.h"
#include "olv2/engine/validator.h"
#include "olv2/evaluation/ground_truth.h"
#include "olv2/evaluation/results_writer.h"
#include "olv2/evaluation/submission_writer.h"
#include "olv2/models/build.h"
#include "olv2/util/environment.h"
#include "olv2/util/error.h"
#include "olv2/util/filesystem.h"
#include "olv2/util/logging.h"
#include "olv2/util/state_dict.h"
#include "olv2/visualization/bev_panel.h"
#include "olv2/visualization/frame_figure.h"

namespace olv2 {

namespace fs = std::filesystem;

ConfigNode resolve_inference_config(const InferenceOptions& options) {
  ConfigNode config =
      read_train_config(options.config_path, options.cfg_options, options.launch.max_frames);
  if (!config.at("data").has(options.split)) {
    throw input_error(options.config_path + ": no `data." + options.split +
                      "` section to predict (--split " + options.split + ")");
  }
  return config;
}

std::shared_ptr<DetectorImpl> model_from_checkpoint(const DetectorOptions& model_options,
                                                    const std::string& checkpoint,
                                                    const c10::Device& device) {
  std::shared_ptr<DetectorImpl> model = model_options.build();
  try {
    load_state_dict(*model, read_checkpoint_weights(checkpoint));
  } catch (const Error& error) {
    throw input_error(checkpoint + ": " + error.what());
  }
  model->to(device);
  return model;
}

void require_checkpoint_file(const std::string& checkpoint) {
  std::error_code missing;
  if (!fs::is_regular_file(checkpoint, missing)) {
    throw input_error("checkpoint " + checkpoint + ": no such file");
  }
}

namespace {

// The config's `submission` section with the command line's members in place of its own.
SubmissionMetadata submission_metadata(const EngineOptions& engine,
                                       const InferenceOptions& options) {
  SubmissionMetadata metadata = engine.evaluation.submission;
  const SubmissionMetadata& flags = options.submission;
  if (!flags.method.empty()) metadata.method = flags.method;
  if (!flags.authors.empty()) metadata.authors = flags.authors;
  if (!flags.e_mail.empty()) metadata.e_mail = flags.e_mail;
  if (!flags.institution.empty()) metadata.institution = flags.institution;
  if (!flags.country.empty()) metadata.country = flags.country;
  return metadata;
}

std::string joined(const std::vector<std::string>& lines, const std::string& separator) {
  std::string text;
  for (const std::string& line : lines) text += (text.empty() ? "" : separator) + line;
  return text;
}

void write_metrics_file(const InferenceOptions& options, const EvaluationMetrics& metrics) {
  const fs::path metrics_file = fs::path(options.work_dir) / ("eval_" + log_timestamp() + ".json");
  std::error_code error;
  fs::create_directories(options.work_dir, error);
  if (error) {
    throw runtime_error(options.work_dir + ": cannot create work dir: " + error.message());
  }
  nlohmann::ordered_json json;
  json["config"] = options.config_path;
  json["checkpoint"] = options.checkpoint;
  json["split"] = options.split;
  json["metrics"] = metrics_to_json(metrics);
  write_file_atomic(metrics_file, json.dump(2) + "\n");
  spdlog::info("metrics {}", metrics_file.string());
}

// The folder a results file goes to, made as mmcv's dump does not: after a long prediction, a
// missing folder should not lose it.
void create_parent_directories(const std::string& file, const std::string& flag) {
  const fs::path parent = fs::path(file).parent_path();
  if (parent.empty()) return;
  std::error_code error;
  fs::create_directories(parent, error);
  if (error)
    throw runtime_error(flag + " " + file + ": cannot create its folder: " + error.message());
}

struct InferencePlan {
  ConfigNode config;
  EngineOptions engine;
  SubmissionMetadata metadata;
  std::vector<std::string> submission_problems;  // of `metadata`, with --out
};

void predict_split(const InferencePlan& plan, const InferenceOptions& options,
                   const c10::Device& device, Collective& collective) {
  const bool main_rank = collective.rank() == 0;
  setup_logging(fs::path(), main_rank);
  spdlog::info("{}", environment_report("test_ds", options.config_path, device,
                                        {{"world size", std::to_string(collective.world_size())},
                                         {"rank", std::to_string(collective.rank())},
                                         {"backend", collective.backend()},
                                         {"checkpoint", options.checkpoint}}));
  const std::shared_ptr<const DetectorOptions> model_options =
      detector_options_from_config(plan.config.at("model"));
  const std::shared_ptr<DetectorImpl> model =
      model_from_checkpoint(*model_options, options.checkpoint, device);
  const std::unique_ptr<OpenLaneV2Dataset> dataset =
      build_dataset(DatasetSpec::from_config(plan.config, options.split), /*seed=*/0);
  // Before predicting: an unannotated split stops here, naming a frame, and --eval names a
  // metric of the split's task.
  std::vector<FrameGroundTruth> ground_truth;
  if (options.eval && main_rank) {
    const FrameIndex& index = dataset->index();
    ground_truth = load_ground_truth(index);
    EvaluationMetrics task_metrics;
    task_metrics.task = frame_format(index.options().kind);
    if (index.options().kind == CollectionKind::kLaneSegNet) task_metrics.lanesegnet.emplace();
    for (const std::string& name : options.eval_metrics)
      headline_metric(task_metrics, name, "--eval");
  }
  PredictionOptions prediction;
  prediction.workers = plan.engine.workers_per_gpu;
  prediction.device = device;
  prediction.collective = &collective;
  prediction.progress_label = options.split;
  if (options.use_fp16) {
    PrecisionSettings fp16;
    fp16.fp16 = true;
    prediction.autocast = resolve_precision(fp16, device).autocast;
    if (prediction.autocast) {
      spdlog::info("predicting under {} autocast", c10::toString(prediction.autocast->dtype));
    } else {
      spdlog::info("predicting in fp32: fp16 is CUDA-only, and this CPU has no bf16 instructions");
    }
  }
  spdlog::info("testing {} frames of data.{}", dataset->size(), options.split);
  const std::optional<std::vector<FramePrediction>> predictions =
      predict_frames(*model, *dataset, prediction);
  if (!predictions) return;  // another rank's: rank 0 writes
  if (!options.results_out.empty()) {
    create_parent_directories(options.results_out, "--results-out");
    write_results_file(options.results_out, *predictions, plan.metadata);
    spdlog::info("results {}", options.results_out);
  }
  if (!options.out.empty()) {
    create_parent_directories(options.out, "--out");
    write_submission_file(options.out, *predictions, plan.metadata);
    spdlog::info("submission {} ({} frames)", options.out, predictions->size());
    if (!plan.submission_problems.empty()) {
      spdlog::warn("{} is not a valid leaderboard submission: {}", options.out,
                   joined(plan.submission_problems, "; "));
    }
  }
  if (!options.show_dir.empty()) {
    FigureOptions figures;
    figures.range = bev_area(model_options->bev_range(), options.config_path + ": model");
    const auto written = write_frame_figures(dataset->index(), &*predictions, predictions->size(),
                                             figures, options.show_dir);
    spdlog::info("{} pictures in {}", written.size(), options.show_dir);
  }
  if (!options.eval) return;
  const EvaluationMetrics metrics =
      evaluate(ground_truth, *predictions, plan.engine.evaluation.metric_version);
  spdlog::info("data.{} ({} frames)\n{}", options.split, metrics.num_frames,
               format_metrics_table(metrics));
  if (!options.eval_metrics.empty()) {
    spdlog::info("eval: {}", format_metrics_line(metrics, options.eval_metrics));
  }
  write_metrics_file(options, metrics);
}

bool is_pickle_name(const std::string& path) {
  const std::string extension = fs::path(path).extension().string();
  return extension == ".pkl" || extension == ".pickle";
}

}  // namespace

int run_inference_command(const InferenceOptions& options) {
  if (!options.eval && options.out.empty() && options.results_out.empty() &&
      options.show_dir.empty()) {
    throw input_error(
        "nothing to do: ask for --eval (score the split), --out FILE.pkl (write the "
        "submission), --results-out FILE (write the predictions) and/or --show-dir DIR (draw "
        "frames)");
  }
  if (!options.out.empty() && !is_pickle_name(options.out)) {
    throw input_error("--out " + options.out + ": expected a .pkl or .pickle file");
  }
  require_checkpoint_file(options.checkpoint);
  InferencePlan plan;
  plan.config = resolve_inference_config(options);
  plan.engine = engine_options_from_config(plan.config);
  plan.metadata = submission_metadata(plan.engine, options);
  if (!options.out.empty()) {
    plan.submission_problems = submission_metadata_problems(plan.metadata);
    // The leaderboard's split: a file it would refuse is not written.
    if (options.split == "test" && !plan.submission_problems.empty()) {
      throw input_error("--out " + options.out + ": the submission's metadata is incomplete: " +
                        joined(plan.submission_problems, "; ") +
                        " (set them in the config's `submission` section or with --method, "
                        "--authors, --e-mail, --institution, --country)");
    }
  }
  const LaunchedProcess process = start_launched_process(options.launch, plan.engine);
  run_on_rank(*process.collective,
              [&] { predict_split(plan, options, process.device, *process.collective); });
  install_process_collective(nullptr);
  return 0;
}

}  // namespace olv2
