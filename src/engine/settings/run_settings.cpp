#include "olv2/engine/settings/run_settings.h"

#include "olv2/config/config_json.h"
#include "olv2/config/config_yaml.h"
#include "olv2/engine/settings/auto_scale_lr.h"
#include "olv2/engine/settings/deepspeed_config.h"
#include "olv2/models/build.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

std::optional<DeepSpeedConfig> deepspeed_config_of(const ConfigNode& config,
                                                   const TrainOptions& options) {
  if (!options.use_ds) return std::nullopt;
  if (!options.deepspeed_config.empty()) return read_deepspeed_config(options.deepspeed_config);
  const ConfigNode* ds = config.find("ds");
  if (ds == nullptr || ds->is_null()) {
    throw input_error(
        "--use-ds needs a DeepSpeed JSON: --deepspeed-config FILE or the config's `ds`");
  }
  if (ds->is_scalar()) return read_deepspeed_config(ds->as_string());
  return parse_deepspeed_config(config_to_json(*ds).dump(), ds->where());
}

}  // namespace

RunSettings run_settings_from_config(const ConfigNode& config, EngineOptions engine,
                                     const TrainOptions& options, int64_t world_size) {
  RunSettings settings;
  settings.training = training_settings_from_config(config);
  if (auto ds = deepspeed_config_of(config, options)) {
    settings.training = apply_deepspeed_config(settings.training, *ds, world_size);
    settings.deepspeed_ignored_keys = ds->ignored;
  }
  settings.training = apply_command_line(settings.training, options.use_fp16);
  if (const ConfigNode* section = config.find("auto_scale_lr")) {
    for (std::string& line : apply_auto_scale_lr(
             settings.training, AutoScaleLrOptions::from_config(*section), world_size)) {
      settings.training.notes.push_back(std::move(line));
    }
  }
  settings.model_type = config.at("model").at("type").as_string();
  settings.model = detector_options_from_config(config.at("model"));
  if (engine.evaluation.visualize > 0) settings.picture_bev_range = settings.model->bev_range();
  settings.train = DatasetSpec::from_config(config, "train");
  if (!options.no_validate && engine.has_val_split) {
    settings.val = DatasetSpec::from_config(config, "val");
  }
  settings.config_text = to_yaml(config);
  settings.engine = std::move(engine);
  return settings;
}

}  // namespace olv2
