#include "olv2/engine/settings/train_config.h"

#include "olv2/config/config_loader.h"
#include "olv2/data/data_section.h"
#include "olv2/engine/hooks/checkpoint_hook.h"
#include "olv2/engine/hooks/training_hooks.h"
#include "olv2/engine/precision/fp16_section.h"
#include "olv2/engine/settings/auto_scale_lr.h"
#include "olv2/engine/settings/engine_options.h"
#include "olv2/engine/settings/engine_schema.h"
#include "olv2/models/build.h"
#include "olv2/solver/lr_scheduler.h"
#include "olv2/solver/solver_config.h"

namespace olv2 {

const std::vector<std::string>& informational_keys() {
  static const std::vector<std::string> keys = {
      "_dim_",        "_pos_dim_",         "_ffn_dim_",    "_num_levels_",   "bev_h_",
      "bev_w_",       "method_para",       "img_norm_cfg", "train_pipeline", "test_pipeline",
      "dataset_type", "point_cloud_range", "voxel_size",   "class_names",    "input_modality",
      "queue_length", "num_cams",          "Map_size",     "code_size",      "_ffn_cfg_",
      "total_epochs", "pts_dim",           "para_method",  "class_nums"};
  return keys;
}

Schema train_config_schema() {
  Schema schema = Schema::map();
  for (const std::string& key : informational_keys()) schema.optional(key, Schema::any());
  const Schema ds_inline = Schema::open_map();
  schema
      .optional("custom_imports", Schema::map()
                                      .optional("imports", Schema::sequence(Schema::string()))
                                      .optional("allow_failed_imports", Schema::boolean()))
      .required("model", model_schema())
      .optional("data_root", Schema::string())
      .optional("meta_root", Schema::string())
      .required("data", DataSection::schema())
      .required("optimizer", optimizer_registry().schema())
      .optional("optimizer_config", SolverOptions::optimizer_config_schema())
      .required("lr_config", lr_schedule_registry().schema())
      .required("runner", runner_schema())
      .optional("evaluation", EvaluationOptions::schema())
      .optional("submission", SubmissionMetadata::schema())
      .optional("checkpoint_config", CheckpointOptions::schema())
      .optional("log_config", LogOptions::schema())
      .optional("custom_hooks", custom_hooks_schema())
      .optional("default_hooks", default_hooks_schema())
      .optional("dist_params", DistributedOptions::schema())
      .optional("log_level", LogOptions::level_schema())
      .optional("work_dir", Schema::string().nullable())
      .optional("load_from", Schema::string().nullable())
      .optional("resume_from", Schema::string().nullable())
      .optional("workflow", Schema::sequence())
      .optional("fp16", Fp16Section::schema())
      .optional("bf16", bf16_schema())
      .optional("ds", Schema::either(Schema::string(), ds_inline).nullable())
      .optional("threads", Schema::integer().range(1, 4096).nullable())
      .optional("auto_scale_lr", AutoScaleLrOptions::schema());
  return schema;
}

std::vector<std::string> ignored_keys_in(const ConfigNode& root) {
  std::vector<std::string> ignored;
  const auto note = [&](const ConfigNode* node, const std::string& why) {
    if (node != nullptr) ignored.push_back(node->path() + ": " + why);
  };
  note(root.find("custom_imports"), "Python plug-in import; the models are built in");
  note(root.find("workflow"), "always train, then validate every evaluation.interval epochs");
  if (const ConfigNode* work_dir = root.find("work_dir");
      work_dir != nullptr && !work_dir->is_null()) {
    note(work_dir, "the work dir is --work-dir's (default work_dirs/<config name>)");
  }
  if (const ConfigNode* data = root.find("data")) {
    note(data->find("shuffler_sampler"),
         "training data is always sharded per rank and shuffled per epoch");
    note(data->find("nonshuffler_sampler"), "validation data is always sharded per rank in order");
  }
  if (const ConfigNode* evaluation = root.find("evaluation")) {
    note(evaluation->find("pipeline"), "validation uses data.val.pipeline");
  }
  return ignored;
}

ConfigNode read_train_config(const std::string& path, const std::vector<std::string>& cfg_options,
                             std::optional<int64_t> max_frames,
                             const std::function<void(ConfigNode&)>& edit) {
  ConfigNode config = load_config_file(path);
  apply_config_overrides(config, cfg_options);
  apply_frame_limit(config, max_frames);
  if (edit) edit(config);
  config.assign_paths();
  validate_config(config, train_config_schema());
  return config;
}

}  // namespace olv2
