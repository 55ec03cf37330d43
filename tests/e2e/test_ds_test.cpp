// test_ds on the checkpoint of a short training run, as a user scores it again.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "olv2/util/pth/pth_file.h"
#include "olv2/util/state_dict.h"
#include "support/json_log_records.h"
#include "support/rank_processes.h"
#include "support/run_command.h"
#include "support/synthetic_dataset.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

std::string dataset_options(const fs::path& root) {
  return "data_root='" + root.string() + "' meta_root='" + root.string() + "'";
}

fs::path test_ds_dataset() {
  return test::synthetic_dataset("test_ds_e2e",
                                 "--frames 4 --val-frames 3 --image-scale 0.0625 --seed 6");
}

fs::path tiny_config() { return test::source_dir() / "configs/tests/tiny.yaml"; }

// The only eval_<timestamp>.json of `dir`.
nlohmann::json eval_file_in(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind("eval_", 0) == 0) files.push_back(entry.path());
  }
  EXPECT_EQ(files.size(), 1u) << dir;
  return files.empty() ? nlohmann::json() : nlohmann::json::parse(std::ifstream(files[0]));
}

// One epoch of tiny.yaml, trained once for the tests of this file; epoch_1.pth holds the
// model its validation scored.
const fs::path& trained_work_dir() {
  static const fs::path work_dir = [] {
    const fs::path dir = test::shared_scratch_dir("test_ds_train");
    const auto trained =
        test::run_app("train_ds", tiny_config().string() + " --work-dir '" + dir.string() +
                                      "' --cfg-options runner.max_epochs=1 " +
                                      dataset_options(test_ds_dataset()));
    EXPECT_EQ(trained.exit_status, 0) << trained.output;
    return dir;
  }();
  return work_dir;
}

// test_ds's arguments for the trained checkpoint, then `extra`.
std::vector<std::string> test_arguments(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {tiny_config().string(),
                                   (trained_work_dir() / "epoch_1.pth").string(),
                                   "--cfg-options",
                                   "data_root=" + test_ds_dataset().string(),
                                   "meta_root=" + test_ds_dataset().string(),
                                   "dist_params.timeout_s=30"};
  args.insert(args.begin() + 2, extra.begin(), extra.end());
  return args;
}

// test_ds on the checkpoint predicts the frames its validation predicted: the same results
// file, byte for byte, and so the same metrics.
TEST(TestDs, ScoresATrainedCheckpointAsItsLastValidationDid) {
  const fs::path train_dir = trained_work_dir();
  const std::vector<nlohmann::json> validations = test::json_log_records(train_dir, "val");
  ASSERT_EQ(validations.size(), 1u);
  const nlohmann::json& val = validations[0];
  ASSERT_EQ(val.at("epoch"), 1);

  const fs::path test_dir = test::scratch_dir("test_ds_eval");
  const fs::path results = test_dir / "results.json";
  const auto tested = test::run_app(
      "test_ds", test::shell_words(test_arguments({"--eval", "--results-json", results.string(),
                                                   "--work-dir", test_dir.string()})));
  ASSERT_EQ(tested.exit_status, 0) << tested.output;
  EXPECT_EQ(test::read_file(results), test::read_file(train_dir / "results_epoch_1.json"));
  const nlohmann::json eval = eval_file_in(test_dir);
  EXPECT_EQ(eval["split"], "val");
  // The log rounds the metrics to 5 digits.
  for (const char* metric : {"DET_l", "DET_t", "TOP_ll", "TOP_lt", "OLS"}) {
    EXPECT_NEAR(eval["metrics"][metric].get<double>(), val.at(metric).get<double>(), 5e-6)
        << metric;
  }
  EXPECT_NE(tested.output.find("OLS"), std::string::npos) << tested.output;
}

// Two ranks predict a shard each and rank 0 gathers them in frame order: the results file of one
// process, byte for byte (3 frames: rank 1's shard pads with frame 0, written once).
TEST(TestDs, TwoRanksWriteTheResultsOfOneProcess) {
  const fs::path dir = test::scratch_dir("test_ds_two_ranks");
  fs::create_directories(dir);
  const auto one = test::run_app(
      "test_ds",
      test::shell_words(test_arguments({"--results-json", (dir / "one.json").string()})));
  ASSERT_EQ(one.exit_status, 0) << one.output;
  test::RankLaunch launch;
  launch.command = test::app_command(
      "test_ds",
      test_arguments({"--results-json", (dir / "two.json").string(), "--launcher", "pytorch"}));
  test::RankProcesses ranks(launch);
  const std::vector<test::RankResult> results = ranks.wait_all(std::chrono::seconds(120));
  ASSERT_EQ(results.size(), 2u);
  for (const test::RankResult& rank : results) EXPECT_EQ(rank.exit_status, 0) << rank.output;
  EXPECT_NE(results[0].output.find("world size: 2"), std::string::npos) << results[0].output;
  EXPECT_EQ(test::read_file(dir / "two.json"), test::read_file(dir / "one.json"));
}

TEST(TestDs, WithoutEvalOrAnOutputItIsABadInvocation) {
  const auto result =
      test::run_app("test_ds", tiny_config().string() + " checkpoint.pth --split val");
  EXPECT_EQ(result.exit_status, 2) << result.output;
  EXPECT_NE(result.output.find("--eval"), std::string::npos) << result.output;
}

TEST(TestDs, ACheckpointOfAnotherModelNamesTheFileAndTheKeys) {
  const fs::path dir = test::scratch_dir("test_ds_foreign");
  fs::create_directories(dir);
  const fs::path checkpoint = dir / "other_model.pth";
  write_pth(checkpoint, to_pth_value({{"other_head.weight", torch::zeros({2, 2})}}));
  const auto result = test::run_app(
      "test_ds", tiny_config().string() + " '" + checkpoint.string() + "' --eval --work-dir '" +
                     dir.string() + "' --cfg-options " + dataset_options(test_ds_dataset()));
  EXPECT_EQ(result.exit_status, 2) << result.output;
  EXPECT_NE(result.output.find(checkpoint.string()), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("other_head.weight"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace olv2
