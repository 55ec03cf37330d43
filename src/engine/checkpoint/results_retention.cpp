#include "olv2/engine/checkpoint/results_retention.h"

#include <algorithm>
#include <functional>
#include <regex>
#include <vector>

#include "olv2/util/error.h"

namespace olv2 {

std::filesystem::path results_file_of(const std::filesystem::path& work_dir, int64_t epoch) {
  return work_dir / ("results_epoch_" + std::to_string(epoch) + ".json");
}

int64_t remove_old_results(const std::filesystem::path& work_dir, int64_t epoch, int64_t keep,
                           std::optional<int64_t> kept_epoch) {
  if (keep <= 0) return 0;
  static const std::regex name(R"(results_epoch_(\d+)\.json)");
  std::vector<int64_t> older;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(work_dir, ignored)) {
    std::smatch match;
    const std::string file = entry.path().filename().string();
    if (!std::regex_match(file, match, name)) continue;
    const int64_t k = std::stoll(match[1].str());
    if (k < epoch && k != kept_epoch) older.push_back(k);
  }
  std::sort(older.begin(), older.end(), std::greater<>());
  int64_t removed = 0;
  for (size_t i = static_cast<size_t>(keep - 1); i < older.size(); ++i) {
    std::error_code error;
    if (std::filesystem::remove(results_file_of(work_dir, older[i]), error)) ++removed;
    if (error) {
      throw runtime_error("cannot remove " + results_file_of(work_dir, older[i]).string() + ": " +
                          error.message());
    }
  }
  return removed;
}

}  // namespace olv2
