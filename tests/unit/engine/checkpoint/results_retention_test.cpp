#include "olv2/engine/checkpoint/results_retention.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

std::set<std::string> results_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename());
  return names;
}

fs::path work_dir_with_results(const std::string& name, const std::vector<int64_t>& epochs) {
  const fs::path dir = test::scratch_dir(name);
  fs::create_directories(dir);
  for (int64_t epoch : epochs) std::ofstream(results_file_of(dir, epoch)) << "{}";
  std::ofstream(dir / "results_epoch_x.json") << "{}";  // not a results file of an epoch
  return dir;
}

TEST(ResultsRetention, KeepsTheLatestAndTheBestEpochsAndNothingNewer) {
  // Epoch 7 is left by an earlier, longer run: newer than the file just written, so kept.
  const fs::path dir = work_dir_with_results("results_keep_two", {1, 2, 3, 4, 5, 7});
  EXPECT_EQ(remove_old_results(dir, 5, 2, /*kept_epoch=*/2), 2);
  EXPECT_EQ(results_in(dir), (std::set<std::string>{"results_epoch_2.json", "results_epoch_4.json",
                                                    "results_epoch_5.json", "results_epoch_7.json",
                                                    "results_epoch_x.json"}));
}

TEST(ResultsRetention, OneKeepsOnlyTheFileJustWritten) {
  const fs::path dir = work_dir_with_results("results_keep_one", {0, 1, 2});
  EXPECT_EQ(remove_old_results(dir, 2, 1, std::nullopt), 2);
  EXPECT_EQ(results_in(dir),
            (std::set<std::string>{"results_epoch_2.json", "results_epoch_x.json"}));
}

TEST(ResultsRetention, ZeroOrLessKeepsAll) {
  const fs::path dir = work_dir_with_results("results_keep_all", {1, 2, 3});
  EXPECT_EQ(remove_old_results(dir, 3, 0, std::nullopt), 0);
  EXPECT_EQ(results_in(dir).size(), 4u);
}

}  // namespace
}  // namespace olv2
