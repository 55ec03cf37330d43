#pragma once
#include <filesystem>
#include <string>

#include "olv2/engine/training_checkpoint.h"

namespace olv2 {

// The checkpoint files of a work dir, as mmcv's CheckpointHook keeps them: `epoch_<k>.pth`
// (or `iter_<n>.pth`), `latest.pth` pointing at the newest, and at most `max_keep` of each kind
// (-1 keeps all).
class CheckpointKeeper {
 public:
  CheckpointKeeper(std::filesystem::path work_dir, int64_t max_keep);

  // Writes `name` (e.g. "epoch_3.pth") atomically, points latest.pth at it and removes the
  // oldest files of the same kind beyond max_keep. Returns the file written.
  std::filesystem::path save(const std::string& name, const TrainingCheckpoint& checkpoint);

  // `latest.pth` of the work dir, or an empty path when there is none.
  std::filesystem::path latest() const;

 private:
  void remove_old(const std::string& prefix) const;

  std::filesystem::path work_dir_;
  int64_t max_keep_;
};

}  // namespace olv2
