#pragma once
// The options of the `test_ds` command line, mmdet's tools/test.py for this project.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "olv2/evaluation/submission_metadata.h"

namespace olv2 {

// The `test_ds` command line (parsed in src/apps): mmdet's tools/test.py for this project.
struct InferenceOptions {
  std::string config_path;
  std::string checkpoint;     // ours, the original trainer's mmcv checkpoint, or a state dict
  std::string split = "val";  // the `data` section predicted: val or test
  bool eval = false;          // score with the official metrics (annotated splits only)
  std::string out;            // where the leaderboard submission pickle goes
  std::string results_json;   // where the predictions go as a results file
  // The submission's metadata from the command line: each non-empty member replaces the
  // config's `submission` member.
  SubmissionMetadata submission;
  std::string show_dir;           // where the first `show_frames` frames are drawn
  int64_t show_frames = 8;        // --frames
  bool use_fp16 = false;          // forward under autocast: fp16 on CUDA, bf16 on the CPU
  std::string work_dir;           // where --eval writes eval_<timestamp>.json
  std::string launcher = "none";  // none | pytorch
  int local_rank = 0;
  std::vector<std::string> cfg_options;
  std::optional<int> threads;
};

}  // namespace olv2
