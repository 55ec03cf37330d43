#include "olv2/engine/checkpoint/checkpoint_keeper.h"

#include "olv2/util/error.h"
#include "olv2/util/platform.h"

namespace olv2 {

namespace fs = std::filesystem;

namespace {

std::string file_name(const std::string& series, int64_t number) {
  return series + "_" + std::to_string(number) + ".pth";
}

}  // namespace

CheckpointKeeper::CheckpointKeeper(fs::path work_dir, int64_t max_keep)
    : work_dir_(std::move(work_dir)), max_keep_(max_keep) {}

fs::path CheckpointKeeper::save(const std::string& series, int64_t number, int64_t interval,
                                const TrainingCheckpoint& checkpoint) {
  const std::string name = file_name(series, number);
  const fs::path path = work_dir_ / name;
  save_training_checkpoint(path, checkpoint);
  platform::point_link_at(work_dir_ / "latest.pth", name);
  remove_older(series, number, interval);
  return path;
}

fs::path CheckpointKeeper::latest() const {
  const fs::path link = work_dir_ / "latest.pth";
  std::error_code error;
  const fs::file_status status = fs::symlink_status(link, error);
  if (error || !fs::exists(status)) return fs::path();
  if (!fs::exists(link, error)) {
    const fs::path target = fs::is_symlink(status) ? fs::read_symlink(link, error) : fs::path();
    throw input_error(link.string() + " points at " + target.string() +
                      ", which does not exist: resume from an existing checkpoint with "
                      "--resume-from FILE, or remove " +
                      link.string() + " to start afresh");
  }
  return link;
}

void CheckpointKeeper::remove_older(const std::string& series, int64_t number,
                                    int64_t interval) const {
  if (max_keep_ <= 0 || interval <= 0) return;
  for (int64_t older = number - max_keep_ * interval; older > 0; older -= interval) {
    const fs::path path = work_dir_ / file_name(series, older);
    std::error_code error;
    if (!fs::is_regular_file(path, error)) break;
    if (!fs::remove(path, error) || error) {
      throw runtime_error(path.string() + ": cannot remove an old checkpoint: " + error.message());
    }
  }
}

}  // namespace olv2
