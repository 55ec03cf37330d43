#include "olv2/engine/test_command.h"

#include <filesystem>

#include "olv2/config/config_loader.h"
#include "olv2/config/schema.h"
#include "olv2/data/dataset_builder.h"
#include "olv2/engine/checkpoint/training_checkpoint.h"
#include "olv2/engine/dist/launched_process.h"
#include "olv2/engine/settings/engine_options.h"
#include "olv2/engine/settings/train_config.h"
#include "olv2/engine/validator.h"
#include "olv2/models/build.h"
#include "olv2/util/environment.h"
#include "olv2/util/error.h"
#include "olv2/util/filesystem.h"
#include "olv2/util/logging.h"
#include "olv2/util/state_dict.h"

namespace olv2 {

namespace fs = std::filesystem;

namespace {

ConfigNode resolve_test_config(const TestOptions& options) {
  ConfigNode config = load_config_file(options.config_path);
  apply_config_overrides(config, options.cfg_options);
  config.assign_paths();
  validate_config(config, train_config_schema());
  if (!config.at("data").has(options.split)) {
    throw input_error(options.config_path + ": no `data." + options.split +
                      "` section to predict (--split " + options.split + ")");
  }
  return config;
}

// The config's model with the checkpoint's weights, strictly: a checkpoint of another model is
// an input error naming the keys. No pretrained backbone is read: the checkpoint replaces it.
std::shared_ptr<DetectorImpl> model_from_checkpoint(const ConfigNode& config,
                                                    const std::string& checkpoint,
                                                    const c10::Device& device) {
  std::shared_ptr<DetectorImpl> model = detector_options_from_config(config.at("model"))->build();
  try {
    load_state_dict(*model, read_checkpoint_weights(checkpoint));
  } catch (const Error& error) {
    throw input_error(checkpoint + ": " + error.what());
  }
  model->to(device);
  return model;
}

void test(const ConfigNode& config, const EngineOptions& engine, const TestOptions& options,
          const c10::Device& device, Collective& collective) {
  const bool main_rank = collective.rank() == 0;
  setup_logging(fs::path(), main_rank);
  spdlog::info("{}", environment_report(options.config_path, device,
                                        {{"world size", std::to_string(collective.world_size())},
                                         {"rank", std::to_string(collective.rank())},
                                         {"backend", collective.backend()},
                                         {"checkpoint", options.checkpoint}}));
  const std::shared_ptr<DetectorImpl> model =
      model_from_checkpoint(config, options.checkpoint, device);
  const std::unique_ptr<OpenLaneV2Dataset> dataset =
      build_dataset(dataset_spec_from_config(config, options.split), /*seed=*/0);
  ValidationOptions validation;
  validation.workers = engine.workers_per_gpu;
  validation.device = device;
  validation.results_file = options.results_json;
  validation.metadata = engine.evaluation.submission;
  validation.collective = &collective;
  spdlog::info("testing {} frames of data.{}", dataset->size(), options.split);
  const std::optional<ValidationResult> result = validate(*model, *dataset, validation);
  if (!result) return;  // another rank's: rank 0 writes
  if (!options.results_json.empty()) spdlog::info("results {}", options.results_json);
  if (!options.eval) return;
  spdlog::info("data.{} ({} frames)\n{}", options.split, result->metrics.num_frames,
               format_metrics_table(result->metrics));
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
  json["metrics"] = metrics_to_json(result->metrics);
  write_file_atomic(metrics_file, json.dump(2) + "\n");
  spdlog::info("metrics {}", metrics_file.string());
}

}  // namespace

int run_test_command(const TestOptions& options) {
  if (!options.eval && options.results_json.empty()) {
    throw input_error(
        "test_ds: nothing to do: ask for --eval (score the split) and/or --results-json FILE "
        "(write the predictions)");
  }
  const ConfigNode config = resolve_test_config(options);
  const EngineOptions engine = engine_options_from_config(config);
  const LaunchedProcess process =
      start_launched_process(options.launcher, options.local_rank, options.threads, engine);
  run_on_rank(*process.collective,
              [&] { test(config, engine, options, process.device, *process.collective); });
  install_process_collective(nullptr);
  return 0;
}

}  // namespace olv2
