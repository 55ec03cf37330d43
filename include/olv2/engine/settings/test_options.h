#pragma once
#include <optional>
#include <string>
#include <vector>

namespace olv2 {

// The `test_ds` command line (parsed in src/apps): mmdet's tools/test.py for this project.
struct TestOptions {
  std::string config_path;
  std::string checkpoint;         // ours, the original trainer's mmcv checkpoint, or a state dict
  std::string split = "val";      // the `data` section predicted: val or test
  bool eval = false;              // score with the official metrics
  std::string results_json;       // where the predictions go as a results file
  std::string work_dir;           // where --eval writes eval_<timestamp>.json
  std::string launcher = "none";  // none | pytorch
  int local_rank = 0;
  std::vector<std::string> cfg_options;
  std::optional<int> threads;
};

}  // namespace olv2
