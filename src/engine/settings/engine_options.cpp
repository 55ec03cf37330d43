#include "olv2/engine/settings/engine_options.h"

#include "olv2/data/data_section.h"

namespace olv2 {

namespace {

std::string optional_path(const ConfigNode& root, const std::string& key) {
  const ConfigNode* node = root.find(key);
  return node == nullptr || node->is_null() ? std::string() : node->as_string();
}

}  // namespace

EngineOptions engine_options_from_config(const ConfigNode& root) {
  EngineOptions options;
  options.max_epochs = root.at("runner").at("max_epochs").as_int();
  options.workers_per_gpu = DataSection::from_config(root.at("data")).workers_per_gpu;
  options.has_val_split = root.at("data").has("val");
  options.log = LogOptions::from_config(root.find("log_config"), root.find("log_level"));
  options.evaluation =
      EvaluationOptions::from_config(root.find("evaluation"), root.find("submission"));
  options.dist = DistributedOptions::from_config(root.find("dist_params"));
  options.hooks = training_hooks_from_config(root);
  options.resume_from = optional_path(root, "resume_from");
  options.load_from = optional_path(root, "load_from");
  if (const ConfigNode* threads = root.find("threads"); threads != nullptr && !threads->is_null())
    options.threads = static_cast<int>(threads->as_int());
  return options;
}

}  // namespace olv2
