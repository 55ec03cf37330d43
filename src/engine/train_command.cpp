#include "olv2/engine/train_command.h"

#include <filesystem>
#include <iostream>

#include "olv2/config/config_yaml.h"
#include "olv2/engine/distributed/launched_process.h"
#include "olv2/engine/settings/engine_options.h"
#include "olv2/engine/settings/train_config.h"
#include "olv2/engine/training_run.h"
#include "olv2/util/collective.h"
#include "olv2/util/cuda_device.h"
#include "olv2/util/determinism.h"
#include "olv2/util/environment.h"
#include "olv2/util/error.h"
#include "olv2/util/filesystem.h"
#include "olv2/util/logging.h"
#include "olv2/util/stop_request.h"
#include "olv2/util/threads.h"

namespace olv2 {

namespace fs = std::filesystem;

namespace {

void override_path_key(ConfigNode& root, const std::string& key, const std::string& flag_value,
                       const std::string& flag) {
  if (flag_value.empty()) return;
  root.set(key, ConfigNode::scalar(flag_value, {flag + " " + flag_value, 0, 0}, true));
}

void log_config_notes(const ConfigNode& config) {
  std::string kept;
  for (const std::string& key : informational_keys()) {
    if (config.has(key)) kept += (kept.empty() ? "" : ", ") + key;
  }
  if (!kept.empty()) spdlog::info("config variables kept as written, no effect: {}", kept);
  for (const std::string& note : ignored_keys_in(config))
    spdlog::info("config key ignored: {}", note);
}

// Only rank 0 writes into the work dir (the config copy, logs, checkpoints, results); the other
// ranks log warnings and errors to the console.
void train(const ConfigNode& config, const EngineOptions& engine, const TrainOptions& options,
           const c10::Device& device, Collective& collective,
           std::vector<std::unique_ptr<Hook>> observers) {
  const bool main_rank = collective.rank() == 0;
  const fs::path work_dir(options.work_dir);
  RunFiles files{work_dir, log_timestamp()};
  if (main_rank) {
    std::error_code error;
    fs::create_directories(work_dir, error);
    if (error)
      throw runtime_error(work_dir.string() + ": cannot create work dir: " + error.message());
    write_file_atomic(work_dir / fs::path(options.config_path).filename(), to_yaml(config));
  }
  setup_logging(main_rank ? work_dir / (files.timestamp + ".log") : fs::path(), main_rank);
  if (main_rank) set_log_level(engine.log.level);
  spdlog::info("{}", environment_report("train_ds", options.config_path, device,
                                        {{"world size", std::to_string(collective.world_size())},
                                         {"rank", std::to_string(collective.rank())},
                                         {"backend", collective.backend()}}));
  spdlog::info("Config:\n{}", to_yaml(config));
  log_config_notes(config);
  TrainingRun run(run_settings_from_config(config, engine, options, collective.world_size()),
                  options, files, device, collective);
  run.run(std::move(observers));
  spdlog::info("training finished; work dir {}", work_dir.string());
}

// An input error, before any work, when a file the run will read is not there: named by its flag,
// or by its config key and line.
void require_readable_file(const ConfigNode& config, const std::string& key) {
  const ConfigNode* node = config.find(key);
  if (node == nullptr || node->is_null()) return;
  const std::string path = node->as_string();
  if (path.empty() || (key == "resume_from" && path == "auto")) return;
  std::error_code error;
  if (!fs::is_regular_file(path, error)) {
    const std::string folder =
        fs::path(path).is_relative() ? " in " + fs::current_path(error).string() : "";
    throw input_error(node->where() + ": no such file `" + path + "`" + folder);
  }
}

}  // namespace

ConfigNode resolve_train_config(const TrainOptions& options) {
  return read_train_config(
      options.config_path, options.cfg_options, options.launch.max_frames,
      [&options](ConfigNode& config) {
        override_path_key(config, "load_from", options.load_from, "--load-from");
        override_path_key(config, "resume_from", options.resume_from, "--resume-from");
      });
}

int run_train_command(const TrainOptions& options, std::vector<std::unique_ptr<Hook>> observers) {
  const ConfigNode config = resolve_train_config(options);
  if (options.print_config) {
    std::cout << to_yaml(config);
    return 0;
  }
  const EngineOptions engine = engine_options_from_config(config);
  require_readable_file(config, "load_from");
  require_readable_file(config, "resume_from");
  if (!options.deepspeed_config.empty() && !fs::is_regular_file(options.deepspeed_config)) {
    throw input_error("--deepspeed-config " + options.deepspeed_config + ": no such file");
  }
  const LaunchedProcess process = start_launched_process(options.launch, engine);
  if (options.deterministic) use_deterministic_algorithms(process.device);
  install_stop_request_handlers();
  run_on_rank(*process.collective, [&] {
    train(config, engine, options, process.device, *process.collective, std::move(observers));
  });
  install_process_collective(nullptr);
  return 0;
}

}  // namespace olv2
