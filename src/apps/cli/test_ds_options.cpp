#include "cli/test_ds_options.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <string>

#include "cli/command_line.h"
#include "olv2/evaluation/evaluator.h"
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
  app.add_option("--split", options.split, "the `data` section to predict (default val)")
      ->check(CLI::IsMember({"val", "test"}));
  CLI::Option* eval =
      app.add_option("--eval", options.eval_metrics,
                     "score the predictions with the official metrics of the split's task; "
                     "names given are also logged on one line (lane centerlines: OLS, DET_l, "
                     "DET_t, TOP_ll, TOP_lt, F-Score; lane segments: UniScore, DET_l, DET_a, "
                     "DET_t, TOP_ll, TOP_lt, and on LaneSegNet's collection mAP, AP_ls, AP_ped, "
                     "TOP_lsls)")
          ->expected(0, -1)
          ->check(CLI::IsMember(metric_names()));
  app.add_option("--out", options.out,
                 "write the leaderboard submission (the devkit's pickle) to this file");
  app.add_option("--results-out", options.results_out,
                 "write the predictions as a results file (JSON)");
  SubmissionMetadata& submission = options.submission;
  app.add_option("--method", submission.method, "submission `method` (default: the config's)");
  app.add_option("--authors", submission.authors,
                 "submission `authors`, one word each (default: the config's)");
  app.add_option("--e-mail", submission.e_mail, "submission `e-mail` (default: the config's)");
  app.add_option("--institution", submission.institution,
                 "submission `institution / company` (default: the config's)");
  app.add_option("--country", submission.country,
                 "submission `country / region`, an ISO 3166 name or code (default: the "
                 "config's)");
  app.add_option("--show-dir", options.show_dir,
                 "draw every predicted frame with its predictions into this folder");
  app.add_flag("--use-fp16", options.use_fp16, "predict under autocast: fp16 on CUDA, bf16 on CPU");
  app.add_option("--work-dir", options.work_dir,
                 "where --eval writes eval_<timestamp>.json (default work_dirs/<config name>)");
  add_launch_options(app, options.launch, options.cfg_options);
  add_gpu_choice_answer(app, "test_ds", "scripts/dist_test.sh CONFIG CHECKPOINT N");

  if (!parse_or_print_help(app, "test_ds", argc, argv)) return std::nullopt;
  options.eval = eval->count() > 0;
  // A bare --eval leaves one empty name behind.
  options.eval_metrics.erase(
      std::remove(options.eval_metrics.begin(), options.eval_metrics.end(), std::string()),
      options.eval_metrics.end());
  require_thread_count(options.launch.threads);
  if (options.work_dir.empty()) options.work_dir = default_work_dir(options.config_path);
  return options;
}

}  // namespace olv2
