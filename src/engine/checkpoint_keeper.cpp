#include "olv2/engine/checkpoint_keeper.h"

#include <unistd.h>

#include <algorithm>
#include <vector>

#include "olv2/util/error.h"

namespace olv2 {

namespace fs = std::filesystem;

namespace {

// The number in "<prefix><number>.pth", or -1.
int64_t checkpoint_number(const std::string& file_name, const std::string& prefix) {
  if (file_name.rfind(prefix, 0) != 0 || file_name.size() <= prefix.size() + 4) return -1;
  if (file_name.substr(file_name.size() - 4) != ".pth") return -1;
  const std::string digits = file_name.substr(prefix.size(), file_name.size() - prefix.size() - 4);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoll(digits);
}

}  // namespace

CheckpointKeeper::CheckpointKeeper(fs::path work_dir, int64_t max_keep)
    : work_dir_(std::move(work_dir)), max_keep_(max_keep) {}

fs::path CheckpointKeeper::save(const std::string& name, const TrainingCheckpoint& checkpoint) {
  const fs::path path = work_dir_ / name;
  save_training_checkpoint(path, checkpoint);
  // latest.pth is a relative symlink, replaced atomically by renaming a fresh one over it.
  const fs::path link = work_dir_ / "latest.pth";
  const fs::path temporary = work_dir_ / (".latest.pth.tmp." + std::to_string(::getpid()));
  std::error_code error;
  fs::remove(temporary, error);
  fs::create_symlink(name, temporary, error);
  if (!error) fs::rename(temporary, link, error);
  if (error) throw runtime_error(link.string() + ": cannot update: " + error.message());
  remove_old(name.substr(0, name.find('_') + 1));
  return path;
}

fs::path CheckpointKeeper::latest() const {
  const fs::path link = work_dir_ / "latest.pth";
  return fs::exists(link) ? link : fs::path();
}

void CheckpointKeeper::remove_old(const std::string& prefix) const {
  if (max_keep_ < 0) return;
  std::vector<std::pair<int64_t, fs::path>> files;
  for (const auto& entry : fs::directory_iterator(work_dir_)) {
    const int64_t number = checkpoint_number(entry.path().filename().string(), prefix);
    if (number >= 0) files.emplace_back(number, entry.path());
  }
  std::sort(files.begin(), files.end());
  const size_t keep = static_cast<size_t>(std::max<int64_t>(max_keep_, 1));
  for (size_t i = 0; i + keep < files.size(); ++i) fs::remove(files[i].second);
}

}  // namespace olv2
