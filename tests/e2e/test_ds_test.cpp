// test_ds on the checkpoint of a short training run, as a user scores it again.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "olv2/util/pth/pth_file.h"
#include "olv2/util/state_dict.h"
#include "support/json_log_records.h"
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

// One epoch of training validates the model it saves in epoch_1.pth: test_ds on that file
// predicts the same frames, so it writes the same results file and the same metrics.
TEST(TestDs, ScoresATrainedCheckpointAsItsLastValidationDid) {
  const fs::path train_dir = test::scratch_dir("test_ds_train");
  const auto trained = test::run_app(
      "train_ds", tiny_config().string() + " --work-dir '" + train_dir.string() +
                      "' --cfg-options runner.max_epochs=1 " + dataset_options(test_ds_dataset()));
  ASSERT_EQ(trained.exit_status, 0) << trained.output;
  const std::vector<nlohmann::json> validations = test::json_log_records(train_dir, "val");
  ASSERT_EQ(validations.size(), 1u);
  const nlohmann::json& val = validations[0];
  ASSERT_EQ(val.at("epoch"), 1);

  const fs::path test_dir = test::scratch_dir("test_ds_eval");
  const fs::path results = test_dir / "results.json";
  const auto tested = test::run_app(
      "test_ds", tiny_config().string() + " '" + (train_dir / "epoch_1.pth").string() +
                     "' --eval --results-json '" + results.string() + "' --work-dir '" +
                     test_dir.string() + "' --cfg-options " + dataset_options(test_ds_dataset()));
  ASSERT_EQ(tested.exit_status, 0) << tested.output;
  EXPECT_EQ(test::read_file(results), test::read_file(train_dir / "results_epoch_1.json"));
  const nlohmann::json eval = eval_file_in(test_dir);
  EXPECT_EQ(eval["split"], "val");
  // The same predictions byte for byte give the same metrics; the log rounds them to 5 digits.
  for (const char* metric : {"DET_l", "DET_t", "TOP_ll", "TOP_lt", "OLS"}) {
    EXPECT_NEAR(eval["metrics"][metric].get<double>(), val.at(metric).get<double>(), 5e-6)
        << metric;
  }
  EXPECT_NE(tested.output.find("OLS"), std::string::npos) << tested.output;
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
