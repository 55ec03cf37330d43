#include "olv2/engine/checkpoint/resume.h"

#include "olv2/engine/checkpoint/checkpoint_keeper.h"
#include "olv2/util/error.h"
#include "olv2/util/logging.h"

namespace olv2 {

namespace fs = std::filesystem;

fs::path resume_checkpoint_path(const std::string& resume_from, const fs::path& work_dir) {
  if (resume_from != "auto") return resume_from;
  const fs::path latest = CheckpointKeeper(work_dir, -1).latest();
  if (latest.empty()) {
    spdlog::info("--resume-from auto: no checkpoint in {} yet, starting from scratch",
                 work_dir.string());
  }
  return latest;
}

uint64_t run_seed(std::optional<int64_t> seed_flag, const TrainingCheckpoint* checkpoint,
                  const fs::path& checkpoint_path) {
  if (checkpoint == nullptr) return static_cast<uint64_t>(seed_flag.value_or(0));
  const uint64_t recorded = checkpoint->identity.seed;
  if (seed_flag && static_cast<uint64_t>(*seed_flag) != recorded) {
    throw input_error("--seed " + std::to_string(*seed_flag) + " differs from the seed " +
                      std::to_string(recorded) + " of " + checkpoint_path.string() +
                      ", which this run resumes: leave --seed out or pass --seed " +
                      std::to_string(recorded));
  }
  return recorded;
}

void check_same_trajectory(const RunIdentity& run, const TrainingCheckpoint& checkpoint,
                           const fs::path& checkpoint_path) {
  if (!checkpoint.has_batch_identity) return;
  const RunIdentity& recorded = checkpoint.identity;
  const auto layout = [](const RunIdentity& identity) {
    return std::to_string(identity.world_size) + " ranks x samples_per_gpu " +
           std::to_string(identity.samples_per_gpu) + " x gradient_accumulation_steps " +
           std::to_string(identity.accumulation_steps);
  };
  const auto world_batch = [](const RunIdentity& identity) {
    return identity.world_size * identity.samples_per_gpu * identity.accumulation_steps;
  };
  const bool same_layout = run.world_size == recorded.world_size &&
                           run.samples_per_gpu == recorded.samples_per_gpu &&
                           run.accumulation_steps == recorded.accumulation_steps;
  if (same_layout) return;
  const TrainingProgress& progress = checkpoint.progress;
  const bool at_epoch_end = progress.epoch_batches == 0 && progress.epoch_position == 0;
  if (at_epoch_end && world_batch(run) == world_batch(recorded)) {
    spdlog::info(
        "resuming {} as {} (the checkpoint's: {}): the same world batch of {} from an epoch's "
        "end; the data order of the epochs from here is this layout's",
        checkpoint_path.string(), layout(run), layout(recorded), world_batch(run));
    return;
  }
  const auto check = [&](const std::string& setting, int64_t now, int64_t then) {
    if (now == then) return;
    throw input_error("cannot resume " + checkpoint_path.string() + ": " + setting + " is " +
                      std::to_string(now) + " in this run but " + std::to_string(then) +
                      " in the checkpoint (the same trajectory needs the same value; a "
                      "checkpoint written at an epoch's end resumes under another layout of "
                      "the same world batch, ranks x samples_per_gpu x "
                      "gradient_accumulation_steps = " +
                      std::to_string(world_batch(recorded)) + ")");
  };
  check("the world size", run.world_size, recorded.world_size);
  check("samples_per_gpu", run.samples_per_gpu, recorded.samples_per_gpu);
  check("gradient_accumulation_steps", run.accumulation_steps, recorded.accumulation_steps);
}

}  // namespace olv2
