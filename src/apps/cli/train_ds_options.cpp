#include "cli/train_ds_options.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>

#include "cli/command_line.h"
#include "olv2/util/error.h"

namespace olv2 {

std::optional<TrainOptions> parse_train_options(int argc, const char* const* argv) {
  TrainOptions options;
  CLI::App app{"Train and validate an OpenLane-V2 topology model.", "train_ds"};
  app.add_option("config", options.config_path, "YAML config file");
  app.add_option("--work-dir,--work_dir", options.work_dir,
                 "where logs and checkpoints go (default work_dirs/<config name>)");
  app.add_option("--resume-from,--resume_from", options.resume_from,
                 "checkpoint to resume from, or `auto` for the work dir's latest");
  app.add_option("--load-from,--load_from", options.load_from, "checkpoint to load weights from");
  app.add_flag("--no-validate,--no_validate", options.no_validate,
               "skip validation during training");
  app.add_option_function<int64_t>(
      "--seed", [&options](const int64_t& seed) { options.seed = seed; },
      "random seed (default: a resumed checkpoint's, else 0)");
  app.add_flag("--deterministic", options.deterministic, "use deterministic algorithms");
  app.add_option("--launcher", options.launcher, "job launcher")
      ->check(CLI::IsMember({"none", "pytorch"}))
      ->capture_default_str();
  app.add_option("--local-rank,--local_rank", options.local_rank,
                 "local rank (the DeepSpeed launcher passes --local_rank=N)");
  app.add_flag("--use-ds,--use_ds", options.use_ds, "apply a DeepSpeed JSON config");
  app.add_option("--deepspeed-config,--deepspeed_config", options.deepspeed_config,
                 "DeepSpeed JSON config (else the config's `ds`)");
  app.add_flag("--use-fp16,--use_fp16", options.use_fp16,
               "mixed precision: fp16 on CUDA, bf16 on CPU, with a dynamic loss scaler");
  app.add_option("--cfg-options,--cfg_options", options.cfg_options,
                 "override config values: key.path=value (values are YAML)")
      ->expected(1, -1);
  app.add_option_function<int>(
      "--threads", [&options](const int& threads) { options.threads = threads; },
      "intra-op threads (default: cores / LOCAL_WORLD_SIZE)");
  app.add_flag("--print-config", options.print_config,
               "print the resolved config as YAML and exit");
  app.add_flag("--version", options.print_version, "print the version and exit");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return std::nullopt;
  } catch (const CLI::ParseError& error) {
    throw input_error(command_line_error(app, error, "train_ds"));
  }
  if (options.print_version) return options;
  if (options.config_path.empty())
    throw input_error("a config file is required (see train_ds --help)");
  if (options.threads && *options.threads < 1) {
    throw input_error("--threads " + std::to_string(*options.threads) + ": expected at least 1");
  }
  if (options.work_dir.empty()) {
    options.work_dir =
        (std::filesystem::path("work_dirs") / std::filesystem::path(options.config_path).stem())
            .string();
  }
  return options;
}

}  // namespace olv2
