#include "cli/test_ds_options.h"

#include <CLI/CLI.hpp>

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
  add_launch_options(app, options.launcher, options.local_rank, options.cfg_options,
                     options.threads);

  if (!parse_or_print_help(app, "test_ds", argc, argv)) return std::nullopt;
  require_thread_count(options.threads);
  if (options.work_dir.empty()) options.work_dir = default_work_dir(options.config_path);
  return options;
}

}  // namespace olv2
