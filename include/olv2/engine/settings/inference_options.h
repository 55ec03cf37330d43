#pragma once
// The options of the `test_ds` command line, mmdet's tools/test.py for this project.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "olv2/engine/settings/launch_options.h"
#include "olv2/evaluation/submission_metadata.h"

namespace olv2 {

// The `test_ds` command line (parsed in src/apps): mmdet's tools/test.py for this project.
struct InferenceOptions {
  std::string config_path;
  std::string checkpoint;     // ours, the original trainer's mmcv checkpoint, or a state dict
  std::string split = "val";  // the `data` section predicted: val or test
  bool eval = false;          // score with the official metrics (annotated splits only)
  std::vector<std::string> eval_metrics;  // the metrics to log on one line (--eval METRIC...)
  std::string out;                        // where the leaderboard submission pickle goes
  std::string results_out;                // where the predictions go as a results file
  // The submission's metadata from the command line: each non-empty member replaces the
  // config's `submission` member.
  SubmissionMetadata submission;
  std::string show_dir;   // where every predicted frame is drawn
  bool use_fp16 = false;  // forward under autocast: fp16 on CUDA, bf16 on the CPU
  std::string work_dir;   // where --eval writes eval_<timestamp>.json
  LaunchOptions launch;
  std::vector<std::string> cfg_options;
};

}  // namespace olv2
