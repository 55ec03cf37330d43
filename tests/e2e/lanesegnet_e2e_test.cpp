// LaneSegNet trained and tested as a user runs it: train_ds on configs/demo_lanesegnet.yaml
// (LaneSegNet's dataset keys and lane-segment pipeline, the reduced model) on v2.x lane-segment
// frames of the synthetic generator, in mixed precision with accumulation and recomputed stages,
// resumed exactly, and on two ranks; test_ds scoring the checkpoint and writing the submission,
// which the devkit 2.x's own evaluation scores the same; and the dataset's refusals of a
// collection of the other format.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "olv2/util/pth/pth_file.h"
#include "support/devkit_lane_segment_score.h"
#include "support/json_log_records.h"
#include "support/run_command.h"
#include "support/synthetic_dataset.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

fs::path lanesegnet_demo_config() { return test::source_dir() / "configs/demo_lanesegnet.yaml"; }

// 6 train and 2 val lane-segment frames at the demo's image size, laid out as the demo expects
// (data/synthetic_ls under the working folder).
fs::path lanesegnet_workspace() {
  static const fs::path workspace = [] {
    const fs::path dir = test::shared_scratch_dir("lanesegnet_e2e");
    fs::create_directories(dir / "data");
    const fs::path dataset = test::synthetic_dataset(
        "lanesegnet_e2e", "--frames 8 --val-frames 2 --seed 5 --format lane-segment");
    std::error_code ignored;
    fs::remove(dir / "data/synthetic_ls", ignored);
    fs::create_directory_symlink(dataset, dir / "data/synthetic_ls");
    return dir;
  }();
  return workspace;
}

std::string lanesegnet_train_ds(const fs::path& work_dir, const std::string& options) {
  return "cd '" + lanesegnet_workspace().string() + "' && '" +
         (test::bin_dir() / "train_ds").string() + "' '" + lanesegnet_demo_config().string() +
         "' --work-dir '" + work_dir.string() + "' --threads 1 " + options;
}

// Three epochs of six frames, run once for the tests that use the checkpoint.
const test::CommandResult& lanesegnet_trained() {
  static const test::CommandResult run = test::run_command(
      lanesegnet_train_ds(lanesegnet_workspace() / "work",
                          "--cfg-options runner.max_epochs=3 checkpoint_config.interval=3 "
                          "log_config.interval=2"));
  return run;
}

// Every one of the 31 logged losses finite, their sum lower at the end than at the start, and
// the checkpoint written.
TEST(LaneSegNetEndToEnd, TrainsOnSyntheticLaneSegmentFrames) {
  const fs::path work_dir = lanesegnet_workspace() / "work";
  ASSERT_EQ(lanesegnet_trained().exit_status, 0) << lanesegnet_trained().output;
  const auto records = test::json_log_records(work_dir, "train");
  ASSERT_GE(records.size(), 6u);
  for (const nlohmann::json& record : records) {
    int losses = 0;
    for (const auto& [key, value] : record.items()) {
      if (key.find("loss") == std::string::npos) continue;
      EXPECT_TRUE(std::isfinite(value.get<double>())) << key;
      ++losses;
    }
    EXPECT_EQ(losses, 32) << record.dump();  // 31 terms and their sum
  }
  EXPECT_LT(records.back().at("loss").get<double>(),
            0.8 * records.front().at("loss").get<double>());
  EXPECT_TRUE(fs::exists(work_dir / "epoch_3.pth"));
}

// test_ds --eval gives the devkit 2.x UniScore and LaneSegNet's own numbers, and its --out
// submission, scored by the devkit's own collect and evaluate, gives the same UniScore.
TEST(LaneSegNetEndToEnd, ItsSubmissionScoresTheSameWithTheDevkit) {
  ASSERT_EQ(lanesegnet_trained().exit_status, 0) << lanesegnet_trained().output;
  const fs::path workspace = lanesegnet_workspace();
  const fs::path work_dir = workspace / "test";
  const auto tested = test::test_ds_with_submission(workspace, lanesegnet_demo_config(),
                                                    "work/epoch_3.pth", "UniScore mAP", work_dir);
  EXPECT_NE(tested.output.find("LaneSegNet's own metrics"), std::string::npos) << tested.output;
  nlohmann::json devkits;
  test::expect_submission_scored_as_test_ds(tested, workspace / "data/synthetic_ls", work_dir,
                                            &devkits);
  if (devkits.is_null()) return;
  EXPECT_GT(devkits.at("UniScore").get<double>(), 0.0);
}

// bf16 autocast with the dynamic loss scaler on the CPU, two accumulated frames a step, the image
// stage and the BEV encoder recomputed in backward: every logged loss finite, three optimizer
// steps for the six frames.
TEST(LaneSegNetEndToEnd, TrainsInMixedPrecisionWithAccumulationAndCheckpointing) {
  const fs::path work_dir = lanesegnet_workspace() / "work_mixed";
  const auto trained = test::run_command(lanesegnet_train_ds(
      work_dir,
      "--use-fp16 --no-validate --cfg-options runner.max_epochs=1 log_config.interval=1 "
      "data.gradient_accumulation_steps=2 "
      "'model.checkpoint=[extract_feat, bev_constructor]'"));
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
  EXPECT_EQ(steps.back().at("iter"), 3) << steps.back().dump();
}

// Resuming from the first epoch's checkpoint continues the run exactly (AdamW's moments, the
// warm-up, GridMask's and dropout's draws): the second epoch ends with the weights of an
// uninterrupted run, bit for bit.
TEST(LaneSegNetEndToEnd, ResumingFromAnEpochCheckpointContinuesTheExactRun) {
  const auto train = [&](const fs::path& work_dir, const std::string& extra) {
    return test::run_command(
        lanesegnet_train_ds(work_dir, "--no-validate " + extra +
                                          " --cfg-options runner.max_epochs=2 "
                                          "checkpoint_config.interval=1 "
                                          "checkpoint_config.max_keep_ckpts=2"));
  };
  const fs::path whole = lanesegnet_workspace() / "work_whole";
  const auto uninterrupted = train(whole, "");
  ASSERT_EQ(uninterrupted.exit_status, 0) << uninterrupted.output;
  const fs::path resumed = lanesegnet_workspace() / "work_resumed";
  const auto continued = train(resumed, "--resume-from '" + (whole / "epoch_1.pth").string() + "'");
  ASSERT_EQ(continued.exit_status, 0) << continued.output;

  const PthValue expected = read_pth(whole / "epoch_2.pth").at("state_dict");
  const PthValue actual = read_pth(resumed / "epoch_2.pth").at("state_dict");
  ASSERT_EQ(expected.dict_items().size(), actual.dict_items().size());
  for (size_t i = 0; i < expected.dict_items().size(); ++i) {
    const auto& [name, tensor] = expected.dict_items()[i];
    EXPECT_EQ(name.to_string(), actual.dict_items()[i].first.to_string());
    EXPECT_TRUE(tensor.as_tensor().equal(actual.dict_items()[i].second.as_tensor()))
        << name.to_string() << " differs after resume";
  }
  EXPECT_GT(expected.dict_items().size(), 500u);
  EXPECT_FALSE(read_pth(whole / "epoch_1.pth")
                   .at("state_dict")
                   .at("pts_bbox_head.reg_branches.0.0.weight")
                   .as_tensor()
                   .equal(expected.at("pts_bbox_head.reg_branches.0.0.weight").as_tensor()));
}

// Two data-parallel ranks (Gloo, one thread each) launched by scripts/dist_train.sh: three
// frames a rank, one epoch, then validation gathered on rank 0 and scored as one split.
TEST(LaneSegNetEndToEnd, TwoRanksTrainAndValidate) {
  const fs::path work_dir = lanesegnet_workspace() / "work_two_ranks";
  const auto trained = test::run_command(
      "cd '" + lanesegnet_workspace().string() +
      "' && DIST_LAUNCHER=self OMP_NUM_THREADS=1 "
      "TRAIN_DS='" +
      (test::bin_dir() / "train_ds").string() + "' bash '" +
      (test::source_dir() / "scripts/dist_train.sh").string() + "' '" +
      lanesegnet_demo_config().string() + "' 2 --work-dir '" + work_dir.string() +
      "' --cfg-options runner.max_epochs=1 evaluation.interval=1 log_config.interval=1 "
      "dist_params.timeout_s=60");
  ASSERT_EQ(trained.exit_status, 0) << trained.output;
  EXPECT_NE(trained.output.find("2 ranks via self"), std::string::npos) << trained.output;
  const auto steps = test::json_log_records(work_dir, "train");
  ASSERT_EQ(steps.size(), 3u) << trained.output;  // six frames, three a rank
  const auto validations = test::json_log_records(work_dir, "val");
  ASSERT_EQ(validations.size(), 1u) << trained.output;
  EXPECT_TRUE(validations.back().contains("UniScore")) << validations.back().dump();
  EXPECT_TRUE(validations.back().contains("mAP")) << validations.back().dump();
}

TEST(LaneSegNetEndToEnd, TheDatasetRefusesCentrelineCollections) {
  const auto refused = test::run_command(lanesegnet_train_ds(
      lanesegnet_workspace() / "refused",
      "--cfg-options data.train.ann_file=data/synthetic_ls/data_dict_synthetic_train.pkl"));
  EXPECT_EQ(refused.exit_status, 2) << refused.output;
  EXPECT_NE(refused.output.find("data.train.ann_file"), std::string::npos) << refused.output;
  EXPECT_NE(refused.output.find("reads v2.x lane-segment frames"), std::string::npos)
      << refused.output;
}

}  // namespace
}  // namespace olv2
