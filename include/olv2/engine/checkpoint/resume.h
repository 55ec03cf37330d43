#pragma once
// Resuming a run: the checkpoint `resume_from` names, the run's seed, and the checks that it
// continues the same trajectory.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "olv2/engine/checkpoint/training_checkpoint.h"

namespace olv2 {

// The checkpoint `resume_from` names: a file, or "auto" for the work dir's latest.pth (an empty
// path while the work dir has none; an input error when latest.pth points at a missing file).
std::filesystem::path resume_checkpoint_path(const std::string& resume_from,
                                             const std::filesystem::path& work_dir);

// The seed of a run: `--seed` when given, else a resumed checkpoint's, else 0. A `--seed` that
// differs from the resumed checkpoint's is an input error naming both.
uint64_t run_seed(std::optional<int64_t> seed_flag, const TrainingCheckpoint* checkpoint,
                  const std::filesystem::path& checkpoint_path);

// A resumed run must continue the checkpoint's trajectory: the same world size,
// samples_per_gpu and gradient accumulation. A checkpoint written at an epoch's end may also
// resume under another layout of the same world batch (ranks x samples x accumulation; logged),
// e.g. after moving to fewer or more GPUs. Otherwise an input error naming the setting and both
// values.
void check_same_trajectory(const RunIdentity& run, const TrainingCheckpoint& checkpoint,
                           const std::filesystem::path& checkpoint_path);

}  // namespace olv2
