#include "cli/test_ds_options.h"

#include <CLI/CLI.hpp>

#include "cli/command_line.h"
#include "olv2/util/error.h"

namespace olv2 {

std::optional<InferenceOptions> parse_inference_options(int argc, const char* const* argv) {
  InferenceOptions options;
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
  app.add_option("--out", options.out,
                 "write the leaderboard submission (the devkit's pickle) to this file");
  app.add_option("--results-json,--results_json", options.results_json,
                 "write the predictions as a results file (JSON)");
  SubmissionMetadata& submission = options.submission;
  app.add_option("--method", submission.method, "submission `method` (else the config's)");
  app.add_option("--authors", submission.authors,
                 "submission `authors`, one word each (else the config's)");
  app.add_option("--e-mail,--e_mail", submission.e_mail, "submission `e-mail` (else the config's)");
  app.add_option("--institution", submission.institution,
                 "submission `institution / company` (else the config's)");
  app.add_option("--country", submission.country,
                 "submission `country / region`, an ISO 3166 name or code (else the config's)");
  app.add_option("--show-dir,--show_dir", options.show_dir,
                 "draw the first --frames frames with their predictions into this folder");
  app.add_option("--frames", options.show_frames, "frames --show-dir draws")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--use-fp16,--use_fp16", options.use_fp16,
               "predict under autocast: fp16 on CUDA, bf16 on CPU");
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
