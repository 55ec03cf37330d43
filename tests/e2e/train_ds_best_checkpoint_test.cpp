// evaluation.save_best and evaluation.keep_results across a run and its resume.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>

#include "olv2/engine/checkpoint/training_checkpoint.h"
#include "olv2/engine/hooks/evaluation_hook.h"
#include "support/json_log_records.h"
#include "support/run_command.h"
#include "support/synthetic_dataset.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

std::string best_run_args(const fs::path& work_dir, const std::string& extra) {
  const std::string root =
      test::synthetic_dataset("best_checkpoint_e2e",
                              "--frames 4 --val-frames 2 --image-scale 0.0625 --seed 5")
          .string();
  return (test::source_dir() / "configs/tests/tiny.yaml").string() + " --work-dir '" +
         work_dir.string() + "' --cfg-options data_root='" + root + "' meta_root='" + root +
         "' evaluation.interval=1 evaluation.save_best=OLS " + extra;
}

// The files of `dir` whose names match `pattern`.
std::set<std::string> files_matching(const fs::path& dir, const std::string& pattern) {
  std::set<std::string> names;
  const std::regex re(pattern);
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (std::regex_match(name, re)) names.insert(name);
  }
  return names;
}

// Epoch 1 trains, then its checkpoint's best score is set to `score`, then the run resumes to
// 3 epochs: what the resumed run does with a best it did not see itself.
fs::path resume_with_best_score(const std::string& name, double score) {
  const fs::path work_dir = test::scratch_dir(name);
  const auto first = test::run_app("train_ds", best_run_args(work_dir, "runner.max_epochs=1"));
  EXPECT_EQ(first.exit_status, 0) << first.output;
  EXPECT_TRUE(fs::exists(work_dir / "best_OLS_epoch_1.pth")) << first.output;
  TrainingCheckpoint checkpoint = read_training_checkpoint(work_dir / "epoch_1.pth");
  const std::optional<BestCheckpoint> best = best_checkpoint_of(checkpoint.hook_msgs);
  EXPECT_TRUE(best.has_value());
  if (!best) return work_dir;
  EXPECT_EQ(best->epoch, 1);
  EXPECT_EQ(best->file, work_dir / "best_OLS_epoch_1.pth");
  checkpoint.hook_msgs.set("best_score", PthValue::from_float(score));
  save_training_checkpoint(work_dir / "epoch_1.pth", checkpoint);
  const auto resumed =
      test::run_app("train_ds", best_run_args(work_dir, "runner.max_epochs=3") +
                                    " --resume-from '" + (work_dir / "epoch_1.pth").string() + "'");
  EXPECT_EQ(resumed.exit_status, 0) << resumed.output;
  return work_dir;
}

// No OLS reaches 2: every later epoch is worse than the restored best, which stays.
TEST(TrainDsBestCheckpoint, AWorseLaterEpochKeepsTheBestThroughAResume) {
  const fs::path work_dir = resume_with_best_score("best_kept", 2.0);
  EXPECT_EQ(files_matching(work_dir, "best_.*\\.pth"),
            (std::set<std::string>{"best_OLS_epoch_1.pth"}));
  const std::optional<BestCheckpoint> last =
      best_checkpoint_of(read_training_checkpoint(work_dir / "epoch_3.pth").hook_msgs);
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->epoch, 1);
  EXPECT_DOUBLE_EQ(last->score, 2.0);
  // keep_results 1 (the default): the last validation's file and the best epoch's.
  EXPECT_EQ(files_matching(work_dir, "results_epoch_.*\\.json"),
            (std::set<std::string>{"results_epoch_1.json", "results_epoch_3.json"}));
}

// Every OLS beats -1: epoch 2 becomes the best and its file replaces epoch 1's; epoch 3 replaces
// it only when strictly better, as its logged OLS says.
TEST(TrainDsBestCheckpoint, ABetterEpochReplacesTheBestFile) {
  const fs::path work_dir = resume_with_best_score("best_replaced", -1.0);
  std::map<int64_t, double> ols;
  for (const nlohmann::json& record : test::json_log_records(work_dir, "val")) {
    ols[record.at("epoch").get<int64_t>()] = record.at("OLS").get<double>();
  }
  ASSERT_EQ(ols.count(2), 1u);
  ASSERT_EQ(ols.count(3), 1u);
  const int64_t best_epoch = ols[3] > ols[2] ? 3 : 2;
  const std::string best_file = "best_OLS_epoch_" + std::to_string(best_epoch) + ".pth";
  EXPECT_EQ(files_matching(work_dir, "best_.*\\.pth"), (std::set<std::string>{best_file}));
  const TrainingCheckpoint best = read_training_checkpoint(work_dir / best_file);
  const std::optional<BestCheckpoint> kept = best_checkpoint_of(best.hook_msgs);
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->epoch, best_epoch);
  EXPECT_NEAR(kept->score, ols[best_epoch], 1e-4);
  EXPECT_EQ(best.progress.epoch, best_epoch);
  std::set<std::string> results{"results_epoch_3.json"};
  results.insert("results_epoch_" + std::to_string(best_epoch) + ".json");
  EXPECT_EQ(files_matching(work_dir, "results_epoch_.*\\.json"), results);
}

}  // namespace
}  // namespace olv2
