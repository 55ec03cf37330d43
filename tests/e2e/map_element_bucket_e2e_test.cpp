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

#include "support/json_log_records.h"
#include "support/run_command.h"
#include "support/synthetic_dataset.h"
#include "support/temp_files.h"
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
  const auto tested = test::run_command(
      "cd '" + workspace.string() + "' && '" + (test::bin_dir() / "test_ds").string() + "' '" +
      bucket_demo_config().string() + "' work/epoch_3.pth --eval UniScore --out '" +
      (work_dir / "submission.pkl").string() + "' --work-dir '" + work_dir.string() +
      "' --threads 1");
  ASSERT_EQ(tested.exit_status, 0) << tested.output;
  EXPECT_NE(tested.output.find("OpenLane-V2 UniScore (devkit 2.x lane segments) over 2 frames"),
            std::string::npos)
      << tested.output;
  fs::path metrics_file;
  for (const auto& entry : fs::directory_iterator(work_dir)) {
    if (entry.path().filename().string().rfind("eval_", 0) == 0) metrics_file = entry.path();
  }
  ASSERT_FALSE(metrics_file.empty()) << tested.output;
  const nlohmann::json ours = nlohmann::json::parse(test::read_file(metrics_file)).at("metrics");
  EXPECT_EQ(ours.at("metric_set"), "OpenLane-V2 UniScore");

  const fs::path environment = test::source_dir() / ".venv-devkit";
  const fs::path devkit = environment / "devkit-2.1.0";
  if (!fs::exists(devkit / "openlanev2")) {
    if (test::running_in_ci())
      FAIL() << devkit << " missing under CI (scripts/install_test_deps.sh)";
    GTEST_SKIP() << devkit << " missing (scripts/install_test_deps.sh installs it)";
  }
  const fs::path data = workspace / "data/synthetic_ls";
  const auto scored = test::run_command(test::shell_words(
      {(environment / "bin" / "python").string(),
       (test::source_dir() / "tests/oracle/devkit_score_submission.py").string(), devkit.string(),
       data.string(), (data / "data_dict_synthetic.json").string(), "val",
       (work_dir / "submission.pkl").string(), (work_dir / "devkit").string()}));
  ASSERT_EQ(scored.exit_status, 0) << scored.output;
  const nlohmann::json devkits =
      nlohmann::json::parse(scored.output.substr(scored.output.rfind('{')));
  for (const char* metric : {"DET_l", "DET_a", "DET_t", "TOP_ll", "TOP_lt", "UniScore"}) {
    EXPECT_NEAR(ours.at(metric).get<double>(), devkits.at(metric).get<double>(), 1e-6) << metric;
  }
  // The area head's areas and the traffic elements are scored, not left empty.
  EXPECT_GT(devkits.at("DET_a").get<double>() + devkits.at("DET_t").get<double>(), 0.0)
      << scored.output;
}

}  // namespace
}  // namespace olv2
