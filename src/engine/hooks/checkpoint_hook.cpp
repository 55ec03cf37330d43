#include "olv2/engine/hooks/checkpoint_hook.h"

#include "olv2/engine/run_checkpoint.h"
#include "olv2/engine/train_context.h"
#include "olv2/util/logging.h"

namespace olv2 {

Schema CheckpointOptions::schema() {
  return Schema::map()
      .optional("interval", Schema::integer().range(-1, 1e9))
      .optional("by_epoch", Schema::boolean())
      .optional("iter_interval", Schema::integer().range(0, 1e12))
      .optional("max_keep_ckpts", Schema::integer().range(-1e9, 1e9));
}

CheckpointOptions CheckpointOptions::from_config(const ConfigNode* section) {
  CheckpointOptions options;
  if (section == nullptr) return options;
  options.interval = section->get<int64_t>("interval", options.interval);
  options.iter_interval = section->get<int64_t>("iter_interval", options.iter_interval);
  options.max_keep = section->get<int64_t>("max_keep_ckpts", options.max_keep);
  return options;
}

Schema CheckpointHookOptions::schema() {
  return hook_schema("CheckpointHook", CheckpointOptions::schema());
}

CheckpointHookOptions CheckpointHookOptions::from_config(const ConfigNode& section) {
  CheckpointHookOptions options;
  options.priority = read_hook_priority(section, HookPriority::kNormal);
  options.checkpoint = CheckpointOptions::from_config(&section);
  return options;
}

std::unique_ptr<Hook> CheckpointHookOptions::build(const HookSite& site) const {
  return std::make_unique<CheckpointHook>(checkpoint, site.work_dir);
}

CheckpointHook::CheckpointHook(CheckpointOptions options, const std::filesystem::path& work_dir)
    : options_(options), keeper_(work_dir, options.max_keep) {}

void CheckpointHook::after_step(TrainContext& context) {
  const int64_t every = options_.iter_interval;
  if (every > 0 && context.iteration % every == 0) {
    save(context, "iter", context.iteration, every, /*epoch_done=*/false);
  }
}

void CheckpointHook::after_epoch(TrainContext& context) {
  const int64_t done = context.epoch + 1;
  const int64_t every = options_.interval;
  const bool last = done == context.max_epochs || context.stop_training;
  if (every > 0 && (done % every == 0 || last)) {
    save(context, "epoch", done, every, /*epoch_done=*/true);
  }
}

void CheckpointHook::save(const TrainContext& context, const std::string& series, int64_t number,
                          int64_t interval, bool epoch_done) {
  const std::optional<TrainingCheckpoint> checkpoint = checkpoint_of(context, epoch_done);
  if (!checkpoint) return;  // another rank's: rank 0 writes
  const std::filesystem::path path = keeper_.save(series, number, interval, *checkpoint);
  spdlog::info("saved checkpoint {}", path.string());
}

}  // namespace olv2
