#include "cli/test_ds_options.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>

#include "cli/command_line.h"
#include "olv2/util/error.h"

namespace olv2 {

std::optional<TestOptions> parse_test_options(int argc, const char* const* argv) {
  TestOptions options;
  CLI::App app{"Score a checkpoint on a split of OpenLane-V2 and write its predictions.",
               "test_ds"};
  app.add_option("config", options.config_path, "YAML config file")->required();
  app.add_option("checkpoint", options.checkpoint,
                 "checkpoint: train_ds's, the original trainer's, or a plain state dict")
      ->required();
  app.add_option("--split", options.split, "the `data` section to predict")
      ->check(CLI::IsMember({"val", "test"}))
      ->capture_default_str();
  app.add_flag("--eval", options.eval, "score the predictions with the official metrics");
  app.add_option("--results-json,--results_json", options.results_json,
                 "write the predictions as a results file (JSON)");
  app.add_option("--work-dir,--work_dir", options.work_dir,
                 "where --eval writes eval_<timestamp>.json (default work_dirs/<config name>)");
  app.add_option("--launcher", options.launcher, "job launcher")
      ->check(CLI::IsMember({"none", "pytorch"}))
      ->capture_default_str();
  app.add_option("--local-rank,--local_rank", options.local_rank,
                 "local rank (the DeepSpeed launcher passes --local_rank=N)");
  app.add_option("--cfg-options,--cfg_options", options.cfg_options,
                 "override config values: key.path=value (values are YAML)")
      ->expected(1, -1);
  app.add_option_function<int>(
      "--threads", [&options](const int& threads) { options.threads = threads; },
      "intra-op threads (default: cores / LOCAL_WORLD_SIZE)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return std::nullopt;
  } catch (const CLI::ParseError& error) {
    throw input_error(command_line_error(app, error, "test_ds"));
  }
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
