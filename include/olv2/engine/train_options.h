#pragma once
#include <optional>
#include <string>
#include <vector>

namespace olv2 {

// The `train_ds` command line: the original trainer's flags plus ours.
struct TrainOptions {
  std::string config_path;
  std::string work_dir;     // default: work_dirs/<config file stem>
  std::string resume_from;  // a checkpoint, or "auto" for the work dir's latest
  std::string load_from;    // weights only
  bool no_validate = false;
  int64_t seed = 0;
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

// Parses argv (argv[0] is the program). Throws an input error (exit status 2) on a bad
// invocation. Returns nullopt after printing help (--help), which is a successful exit.
std::optional<TrainOptions> parse_train_options(int argc, const char* const* argv);

}  // namespace olv2
