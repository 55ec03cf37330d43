#include "cli/train_ds_options.h"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "olv2/util/error.h"

namespace olv2 {

std::optional<TrainOptions> parse_train_options(int argc, const char* const* argv) {
  TrainOptions options;
  CLI::App app{"Train and validate an OpenLane-V2 topology model.", "train_ds"};
  app.add_option("config", options.config_path, "YAML config file");
  app.add_option("--work-dir", options.work_dir,
                 "where logs and checkpoints go (default work_dirs/<config name>)");
  app.add_option("--resume-from", options.resume_from,
                 "checkpoint to resume from, or `auto` for the work dir's latest");
  app.add_flag_callback(
      "--auto-resume", [&options] { options.resume_from = "auto"; },
      "mmdet's spelling of --resume-from auto");
  app.add_option("--load-from", options.load_from, "checkpoint to load weights from");
  add_gpu_choice_answer(app, "train_ds", "scripts/dist_train.sh CONFIG N");
  app.add_flag("--no-validate", options.no_validate, "skip validation during training");
  app.add_option_function<int64_t>(
      "--seed", [&options](const int64_t& seed) { options.seed = seed; },
      "random seed (default: a resumed checkpoint's, else 0)");
  app.add_flag("--deterministic", options.deterministic, "use deterministic algorithms");
  add_launch_options(app, options.launch, options.cfg_options);
  app.add_flag("--use-ds", options.use_ds, "apply a DeepSpeed JSON config");
  app.add_option("--deepspeed-config", options.deepspeed_config,
                 "DeepSpeed JSON config (default: the config's `ds`)");
  app.add_flag("--use-fp16", options.use_fp16,
               "mixed precision: fp16 on CUDA, bf16 on CPU, with a dynamic loss scaler");
  app.add_flag("--print-config", options.print_config,
               "print the resolved config as YAML and exit");

  if (!parse_or_print_help(app, "train_ds", argc, argv)) return std::nullopt;
  if (options.config_path.empty())
    throw input_error("a config file is required (see train_ds --help)");
  require_thread_count(options.launch.threads);
  if (options.work_dir.empty()) options.work_dir = default_work_dir(options.config_path);
  return options;
}

}  // namespace olv2
