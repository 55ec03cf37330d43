// Trains the smallest BaselineLarge on a few synthetic frames with the built binaries: it
// trains (the loss goes down), validates with the official metrics, writes submission-ready
// results, recomputes its checkpointed stages without changing the run, and resumes exactly.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
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

fs::path large_dataset() {
  return test::synthetic_dataset("train_large_e2e",
                                 "--frames 6 --val-frames 2 --image-scale 0.0625 --seed 3");
}

std::string large_train_args(const fs::path& work_dir, const std::string& extra = "") {
  const std::string root = large_dataset().string();
  return (test::source_dir() / "configs/tests/large_tiny.yaml").string() + " --work-dir '" +
         work_dir.string() + "' --cfg-options data_root='" + root + "' meta_root='" + root + "' " +
         extra;
}

NamedTensors large_weights(const fs::path& checkpoint) {
  return tensors_of(read_pth(checkpoint).at("state_dict"));
}

std::vector<double> large_train_losses(const fs::path& work_dir) {
  std::vector<double> losses;
  for (const auto& record : test::json_log_records(work_dir, "train"))
    losses.push_back(record["loss"].get<double>());
  return losses;
}

TEST(TrainDsLarge, TrainsValidatesAndWritesResults) {
  const fs::path work_dir = test::scratch_dir("large_run");
  const auto result = test::run_app("train_ds", large_train_args(work_dir));
  ASSERT_EQ(result.exit_status, 0) << result.output;
  EXPECT_NE(result.output.find("Epoch 0, idx 0 / 4, iter 0 / 4, bs 1 *acc 1: 1, eta "),
            std::string::npos)
      << result.output;
  for (const char* file : {"epoch_1.pth", "epoch_2.pth", "results_epoch_2.json"}) {
    EXPECT_TRUE(fs::exists(work_dir / file)) << file;
  }
  const auto train = test::json_log_records(work_dir, "train");
  ASSERT_EQ(train.size(), 8u);
  for (const char* key :
       {"lane_head.loss_lane_cls", "lane_head.d0.loss_lane_reg", "lclc_head.loss_rel",
        "bbox_head.loss_iou", "bbox_head.d0.loss_cls", "lcte_head.loss_rel", "grad_norm"}) {
    EXPECT_TRUE(train[0].contains(key)) << key << " in " << train[0].dump();
  }
  const auto val = test::json_log_records(work_dir, "val");
  ASSERT_EQ(val.size(), 2u);
  for (const char* key : {"OLS", "DET_l", "DET_t", "TOP_ll", "TOP_lt"}) {
    EXPECT_TRUE(val.back().contains(key)) << key;
  }
  // The results file holds the validation frames with 8 lanes and 8 traffic elements each.
  std::ifstream file(work_dir / "results_epoch_2.json");
  const nlohmann::json results = nlohmann::json::parse(file);
  ASSERT_TRUE(results.contains("results")) << results.dump().substr(0, 200);
  ASSERT_EQ(results["results"].size(), 2u);
  for (const auto& [key, frame] : results["results"].items()) {
    EXPECT_EQ(frame["predictions"]["lane_centerline"].size(), 8u) << key;
    EXPECT_EQ(frame["predictions"]["traffic_element"].size(), 8u) << key;
  }
}

TEST(TrainDsLarge, TheLossGoesDown) {
  const fs::path work_dir = test::scratch_dir("large_descent");
  const auto result =
      test::run_app("train_ds", large_train_args(work_dir, "runner.max_epochs=6 --no-validate"));
  ASSERT_EQ(result.exit_status, 0) << result.output;
  const std::vector<double> losses = large_train_losses(work_dir);
  ASSERT_EQ(losses.size(), 24u);
  const auto mean = [&](size_t from) {
    return (losses[from] + losses[from + 1] + losses[from + 2] + losses[from + 3]) / 4.0;
  };
  EXPECT_LT(mean(20), 0.85 * mean(0));
}

// Same seed, same dropout masks: recomputing extract_feat and bev_constructor in backward
// changes neither the losses nor the weights.
TEST(TrainDsLarge, CheckpointedStagesTrainTheSameModel) {
  const fs::path plain = test::scratch_dir("large_plain");
  const fs::path recomputed = test::scratch_dir("large_checkpointed");
  const std::string common = "runner.max_epochs=1 --no-validate --seed 7";
  ASSERT_EQ(test::run_app("train_ds", large_train_args(plain, common)).exit_status, 0);
  const auto result = test::run_app(
      "train_ds",
      large_train_args(recomputed, "model.checkpoint=[extract_feat,bev_constructor] " + common));
  ASSERT_EQ(result.exit_status, 0) << result.output;
  const std::vector<double> a = large_train_losses(plain), b = large_train_losses(recomputed);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5 * std::abs(a[i])) << i;
  const NamedTensors wa = large_weights(plain / "epoch_1.pth");
  const NamedTensors wb = large_weights(recomputed / "epoch_1.pth");
  ASSERT_EQ(wa.size(), wb.size());
  for (size_t i = 0; i < wa.size(); ++i) {
    EXPECT_TRUE(wa[i].second.allclose(wb[i].second, 1e-4, 1e-6)) << wa[i].first;
  }
}

TEST(TrainDsLarge, ResumeFromAMidEpochCheckpointContinuesTheExactTrajectory) {
  const fs::path full = test::scratch_dir("large_full");
  const auto first = test::run_app(
      "train_ds",
      large_train_args(full, "checkpoint_config.iter_interval=1 --no-validate --seed 5"));
  ASSERT_EQ(first.exit_status, 0) << first.output;
  const fs::path resumed = test::scratch_dir("large_resumed");
  const auto second = test::run_app(
      "train_ds", large_train_args(resumed, "--no-validate --resume-from '" +
                                                (full / "iter_6.pth").string() + "'"));
  ASSERT_EQ(second.exit_status, 0) << second.output;
  const NamedTensors expected = large_weights(full / "epoch_2.pth");
  const NamedTensors actual = large_weights(resumed / "epoch_2.pth");
  ASSERT_EQ(expected.size(), actual.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_TRUE(expected[i].second.equal(actual[i].second))
        << expected[i].first << " differs after resume";
  }
}

}  // namespace
}  // namespace olv2
