#pragma once
// The options of the `train_ds` command line: the original trainer's flags plus this project's.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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
  std::string launcher = "none";  // none | pytorch
  int local_rank = 0;
  bool use_ds = false;
  std::string deepspeed_config;
  bool use_fp16 = false;
  std::vector<std::string> cfg_options;
  std::optional<int> threads;  // unset: config `threads`, else the default for this machine
  bool print_config = false;
  bool print_version = false;
};

}  // namespace olv2
