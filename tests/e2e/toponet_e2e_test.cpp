// TopoNet trained and tested as a user runs it: train_ds on configs/demo_toponet.yaml (TopoNet's
// pipeline, its dataset keys, the reduced model) for one epoch of a few synthetic frames, then
// test_ds on the checkpoint: the same predictions as the validation, and a submission the
// devkit's check_results takes.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "olv2/util/pth/pth_file.h"
#include "support/json_log_records.h"
#include "support/python_numpy.h"
#include "support/run_command.h"
#include "support/synthetic_dataset.h"
#include "support/temp_files.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

fs::path demo_config() { return test::source_dir() / "configs/demo_toponet.yaml"; }

// 2 train and 2 val frames at the demo's image size, in a folder laid out as the demo expects
// (data/synthetic under the working folder).
fs::path toponet_workspace() {
  static const fs::path workspace = [] {
    const fs::path dir = test::shared_scratch_dir("toponet_e2e");
    fs::create_directories(dir / "data");
    const fs::path dataset =
        test::synthetic_dataset("toponet_e2e", "--frames 4 --val-frames 2 --seed 9");
    std::error_code ignored;
    fs::remove(dir / "data/synthetic", ignored);
    fs::create_directory_symlink(dataset, dir / "data/synthetic");
    return dir;
  }();
  return workspace;
}

TEST(TopoNetEndToEnd, TrainsOnTheSyntheticDataAndTestDsSubmitsItsPredictions) {
  const fs::path workspace = toponet_workspace();
  const fs::path work_dir = workspace / "work";
  const std::string in_workspace = "cd '" + workspace.string() + "' && ";
  const auto trained = test::run_command(
      in_workspace + "'" + (test::bin_dir() / "train_ds").string() + "' '" +
      demo_config().string() + "' --work-dir '" + work_dir.string() +
      "' --cfg-options runner.max_epochs=1 evaluation.interval=1 checkpoint_config.interval=1 "
      "--threads 1");
  ASSERT_EQ(trained.exit_status, 0) << trained.output;
  // The demo validates before training and after it.
  const auto validations = test::json_log_records(work_dir, "val");
  ASSERT_EQ(validations.size(), 2u);
  EXPECT_EQ(validations[0].at("epoch"), 0);
  EXPECT_EQ(validations[1].at("epoch"), 1);
  EXPECT_TRUE(validations[1].contains("OLS"));

  const fs::path results = workspace / "results.json";
  const fs::path submission = workspace / "submission.pkl";
  const auto tested = test::run_command(
      in_workspace + "'" + (test::bin_dir() / "test_ds").string() + "' '" + demo_config().string() +
      "' '" + (work_dir / "epoch_1.pth").string() + "' --eval --results-out '" + results.string() +
      "' --out '" + submission.string() + "' --work-dir '" + workspace.string() +
      "' --threads 1 --method TopoNet --authors A.Author --e-mail a@example.org --institution "
      "'Example Lab' --country DE");
  ASSERT_EQ(tested.exit_status, 0) << tested.output;
  EXPECT_EQ(nlohmann::json::parse(test::read_file(results))["results"],
            nlohmann::json::parse(test::read_file(work_dir / "results_epoch_1.json"))["results"]);

  OLV2_REQUIRE_DEVKIT_SOURCES();
  const test::CommandResult checked = test::run_devkit_check_results(submission, workspace);
  EXPECT_EQ(checked.exit_status, 0) << checked.output;
  EXPECT_NE(checked.output.find("check_results: valid"), std::string::npos) << checked.output;
}

// Mixed precision (bf16 autocast with the dynamic loss scaler on the CPU) and two accumulated
// frames a step, recomputing the image stage and the BEV encoder in backward: every logged loss
// finite, and one optimizer step for the two frames.
TEST(TopoNetEndToEnd, TrainsInMixedPrecisionWithAccumulationAndCheckpointing) {
  const fs::path workspace = toponet_workspace();
  const fs::path work_dir = workspace / "work_mixed";
  const auto trained = test::run_command(
      "cd '" + workspace.string() + "' && '" + (test::bin_dir() / "train_ds").string() + "' '" +
      demo_config().string() + "' --work-dir '" + work_dir.string() +
      "' --use-fp16 --no-validate --threads 1 --cfg-options runner.max_epochs=1 "
      "log_config.interval=1 data.gradient_accumulation_steps=2 "
      "'model.checkpoint=[extract_feat, bev_constructor]'");
  ASSERT_EQ(trained.exit_status, 0) << trained.output;
  const auto steps = test::json_log_records(work_dir, "train");
  ASSERT_FALSE(steps.empty()) << trained.output;
  for (const nlohmann::json& step : steps) {
    for (const auto& [key, value] : step.items()) {
      if (key.find("loss") != std::string::npos) {
        EXPECT_TRUE(std::isfinite(value.get<double>())) << key << " in " << step.dump();
      }
    }
  }
  EXPECT_EQ(steps.back().at("iter"), 1) << steps.back().dump();
}

// Resuming TopoNet from its first epoch's checkpoint continues the run exactly: AdamW's moments,
// the warm-up schedule and the random draws of its pipeline (GridMask) and dropout pick up where
// they were, so the second epoch ends with the weights of an uninterrupted run, bit for bit.
TEST(TopoNetEndToEnd, ResumingFromAnEpochCheckpointContinuesTheExactRun) {
  const fs::path workspace = toponet_workspace();
  const auto train = [&](const fs::path& work_dir, const std::string& extra) {
    return test::run_command("cd '" + workspace.string() + "' && '" +
                             (test::bin_dir() / "train_ds").string() + "' '" +
                             demo_config().string() + "' --work-dir '" + work_dir.string() +
                             "' --no-validate --threads 1 " + extra +
                             " --cfg-options runner.max_epochs=2 checkpoint_config.interval=1 "
                             "checkpoint_config.max_keep_ckpts=2");
  };
  const fs::path whole = workspace / "work_whole";
  const auto uninterrupted = train(whole, "");
  ASSERT_EQ(uninterrupted.exit_status, 0) << uninterrupted.output;
  const fs::path resumed = workspace / "work_resumed";
  const auto continued = train(resumed, "--resume-from '" + (whole / "epoch_1.pth").string() + "'");
  ASSERT_EQ(continued.exit_status, 0) << continued.output;

  const PthValue expected = read_pth(whole / "epoch_2.pth").at("state_dict");
  const PthValue actual = read_pth(resumed / "epoch_2.pth").at("state_dict");
  ASSERT_EQ(expected.dict_items().size(), actual.dict_items().size());
  size_t compared = 0;
  for (size_t i = 0; i < expected.dict_items().size(); ++i) {
    const auto& [name, tensor] = expected.dict_items()[i];
    EXPECT_EQ(name.to_string(), actual.dict_items()[i].first.to_string());
    EXPECT_TRUE(tensor.as_tensor().equal(actual.dict_items()[i].second.as_tensor()))
        << name.to_string() << " differs after resume";
    ++compared;
  }
  EXPECT_GT(compared, 100u);
  // The first epoch's weights moved in the second: the comparison is of a trained epoch.
  EXPECT_FALSE(read_pth(whole / "epoch_1.pth")
                   .at("state_dict")
                   .at("pts_bbox_head.reg_branches.0.0.weight")
                   .as_tensor()
                   .equal(expected.at("pts_bbox_head.reg_branches.0.0.weight").as_tensor()));
}

}  // namespace
}  // namespace olv2
