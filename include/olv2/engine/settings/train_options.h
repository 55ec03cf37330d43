#pragma once
// The options of the `train_ds` command line: the original trainer's flags plus this project's.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "olv2/engine/settings/launch_options.h"

namespace olv2 {

// The `train_ds` command line (parsed in src/apps): the original trainer's flags plus ours.
struct TrainOptions {
  std::string config_path;
  std::string work_dir;     // default: work_dirs/<config file stem>
  std::string resume_from;  // a checkpoint, or "auto" for the work dir's latest
  std::string load_from;    // weights only
  bool no_validate = false;
  std::optional<int64_t> seed;  // unset: a resumed checkpoint's seed, else 0
  bool deterministic = false;
  LaunchOptions launch;
  bool use_ds = false;
  std::string deepspeed_config;
  bool use_fp16 = false;
  std::vector<std::string> cfg_options;
  bool print_config = false;
};

}  // namespace olv2
