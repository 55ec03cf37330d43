// LaneSegNet's Map Element Bucket trained and tested as a user runs it: train_ds on
// configs/demo_lanesegnet_mapele_bucket.yaml (the bucket's dataset keys reading the devkit's
// `_ls` collection, the reduced model) on v2.x lane-segment frames of the synthetic generator;
// test_ds scoring the checkpoint and writing the submission with lane segments, areas, traffic
// elements and both topologies, which the devkit 2.x's own evaluation scores the same.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "support/devkit_lane_segment_score.h"
#include "support/json_log_records.h"
#include "support/run_command.h"
#include "support/synthetic_dataset.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

fs::path bucket_demo_config() {
  return test::source_dir() / "configs/demo_lanesegnet_mapele_bucket.yaml";
}

// 6 train and 2 val lane-segment frames at the demo's image size, laid out as the demo expects
// (data/synthetic_ls under the working folder).
fs::path bucket_workspace() {
  static const fs::path workspace = [] {
    const fs::path dir = test::shared_scratch_dir("map_element_bucket_e2e");
    fs::create_directories(dir / "data");
    const fs::path dataset = test::synthetic_dataset(
        "map_element_bucket_e2e", "--frames 8 --val-frames 2 --seed 7 --format lane-segment");
    std::error_code ignored;
    fs::remove(dir / "data/synthetic_ls", ignored);
    fs::create_directory_symlink(dataset, dir / "data/synthetic_ls");
    return dir;
  }();
  return workspace;
}

// Three epochs of six frames, run once for both tests.
const test::CommandResult& bucket_trained() {
  static const test::CommandResult run = test::run_command(
      "cd '" + bucket_workspace().string() + "' && '" + (test::bin_dir() / "train_ds").string() +
      "' '" + bucket_demo_config().string() + "' --work-dir '" +
      (bucket_workspace() / "work").string() +
      "' --threads 1 --no-validate --cfg-options runner.max_epochs=3 "
      "checkpoint_config.interval=3 log_config.interval=2");
  return run;
}

// Every logged loss finite (the lane head's 30 terms, the lane-segment relations, the traffic
// elements' 18 and their relations, the areas' 18), their sum lower at the end than at the
// start, and the checkpoint written.
TEST(MapElementBucketEndToEnd, TrainsOnSyntheticLaneSegmentFrames) {
  const fs::path work_dir = bucket_workspace() / "work";
  ASSERT_EQ(bucket_trained().exit_status, 0) << bucket_trained().output;
  const auto records = test::json_log_records(work_dir, "train");
  ASSERT_GE(records.size(), 6u);
  for (const nlohmann::json& record : records) {
    int losses = 0, areas = 0;
    for (const auto& [key, value] : record.items()) {
      if (key.find("loss") == std::string::npos) continue;
      EXPECT_TRUE(std::isfinite(value.get<double>())) << key;
      ++losses;
      if (key.rfind("area_head.", 0) == 0) ++areas;
    }
    EXPECT_EQ(losses, 69) << record.dump();  // 68 terms and their sum
    EXPECT_EQ(areas, 18) << record.dump();
  }
  EXPECT_LT(records.back().at("loss").get<double>(),
            0.8 * records.front().at("loss").get<double>());
  EXPECT_TRUE(fs::exists(work_dir / "epoch_3.pth"));
}

// test_ds --eval gives the devkit 2.x UniScore, and its --out submission (with areas and
// traffic elements), scored by the devkit's own collect and evaluate, gives the same numbers.
TEST(MapElementBucketEndToEnd, ItsSubmissionScoresTheSameWithTheDevkit) {
  ASSERT_EQ(bucket_trained().exit_status, 0) << bucket_trained().output;
  const fs::path workspace = bucket_workspace();
  const fs::path work_dir = workspace / "test";
  const auto tested = test::test_ds_with_submission(workspace, bucket_demo_config(),
                                                    "work/epoch_3.pth", "UniScore", work_dir);
  nlohmann::json devkits;
  test::expect_submission_scored_as_test_ds(tested, workspace / "data/synthetic_ls", work_dir,
                                            &devkits);
  if (devkits.is_null()) return;
  // The area head's areas and the traffic elements are scored, not left empty.
  EXPECT_GT(devkits.at("DET_a").get<double>() + devkits.at("DET_t").get<double>(), 0.0)
      << devkits.dump();
}

}  // namespace
}  // namespace olv2
