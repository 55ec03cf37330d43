#pragma once
// The checkpoint files of a work dir, written, rotated and pointed at by `latest.pth` as mmcv keeps
// them.
#include <filesystem>
#include <string>

#include "olv2/engine/checkpoint/training_checkpoint.h"

namespace olv2 {

// The checkpoint files of a work dir, as mmcv's CheckpointHook keeps them: series of
// `<series>_<number>.pth` (`epoch_3.pth`, `iter_600.pth`), `latest.pth` pointing at the newest
// file written, and at most `max_keep` files per series (<= 0 keeps all).
class CheckpointKeeper {
 public:
  CheckpointKeeper(std::filesystem::path work_dir, int64_t max_keep);

  // Writes `<series>_<number>.pth` atomically and points latest.pth at it. Then, as mmcv,
  // removes the older files of the series `number - k * interval` for k = max_keep,
  // max_keep + 1, ... down to the first that does not exist: never the file just written,
  // nor a newer one left by an earlier run. Returns the file written.
  std::filesystem::path save(const std::string& series, int64_t number, int64_t interval,
                             const TrainingCheckpoint& checkpoint);

  // The work dir's latest.pth, or an empty path when there is none. A latest.pth whose target
  // is missing is an input error naming both.
  std::filesystem::path latest() const;

 private:
  void remove_older(const std::string& series, int64_t number, int64_t interval) const;

  std::filesystem::path work_dir_;
  int64_t max_keep_;
};

}  // namespace olv2
