#pragma once
// Everything a training run reads from its config and command line, gathered once before it starts.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/data/bev_range.h"
#include "olv2/data/dataset_builder.h"
#include "olv2/engine/settings/engine_options.h"
#include "olv2/engine/settings/train_options.h"
#include "olv2/engine/settings/training_settings.h"
#include "olv2/models/detectors/detector.h"

namespace olv2 {

// Everything a training run reads from its resolved config and command line, read once, so that
// the run itself never looks at a config key: the engine's options, the training settings with
// an optional DeepSpeed JSON laid over them, the detector's options, the datasets, and the
// config's text for the work dir's copy.
struct RunSettings {
  EngineOptions engine;
  TrainingSettings training;
  std::vector<std::string> deepspeed_ignored_keys;  // of the DeepSpeed JSON, for the log
  std::string model_type;                           // model.type, for the log
  std::shared_ptr<const DetectorOptions> model;
  std::optional<BevRange> picture_bev_range;  // the model's, when validation draws pictures
  DatasetSpec train;
  std::optional<DatasetSpec> val;  // none with --no-validate or without `data.val`
  std::string config_text;         // the resolved config as YAML
};

// The settings of `config` (validated) for a run of `world_size` ranks; `--use-ds` takes the
// DeepSpeed JSON from `--deepspeed-config` or the config's `ds` (a path or an inline mapping).
RunSettings run_settings_from_config(const ConfigNode& config, EngineOptions engine,
                                     const TrainOptions& options, int64_t world_size);

}  // namespace olv2
