// Trains the tiny config on a few synthetic frames with the built binaries, as a user would.
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

// Six frames: 4 train (one segment break), 2 val, at 1/16 of the real image size.
fs::path dataset() {
  return test::synthetic_dataset("train_e2e",
                                 "--frames 6 --val-frames 2 --image-scale 0.0625 --seed 3");
}

std::string train_args(const fs::path& work_dir, const std::string& extra = "") {
  const std::string root = dataset().string();
  return (test::source_dir() / "configs/tests/tiny.yaml").string() + " --work-dir '" +
         work_dir.string() + "' --cfg-options data_root='" + root + "' meta_root='" + root + "' " +
         extra;
}

NamedTensors weights(const fs::path& checkpoint) {
  return tensors_of(read_pth(checkpoint).at("state_dict"));
}

TEST(TrainDsTrain, TrainsValidatesAndWritesItsArtifacts) {
  const fs::path work_dir = test::scratch_dir("run");
  const auto result =
      test::run_app("train_ds", train_args(work_dir,
                                           "evaluation.visualize=1 evaluation.keep_results=2 "
                                           "submission.method=tiny "
                                           "'submission.authors=[A. Author, B. Author]' "
                                           "submission.e-mail=a@example.org "
                                           "'submission.institution / company=Example Lab' "
                                           "'submission.country / region=DE'"));
  ASSERT_EQ(result.exit_status, 0) << result.output;
  EXPECT_NE(result.output.find("Epoch 0, idx 0 / 4, iter 0 / 4, bs 1 *acc 1: 1, eta "),
            std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("deterministic: false\n"), std::string::npos) << result.output;
  for (const char* file : {"epoch_1.pth", "epoch_2.pth", "latest.pth", "results_epoch_1.json",
                           "results_epoch_2.json", "tiny.yaml"}) {
    EXPECT_TRUE(fs::exists(work_dir / file)) << file;
  }
  // Every validation writes the results with the `submission` metadata, and one picture.
  for (const char* epoch : {"1", "2"}) {
    const nlohmann::json results = nlohmann::json::parse(
        std::ifstream(work_dir / (std::string("results_epoch_") + epoch + ".json")));
    EXPECT_EQ(results["method"], "tiny");
    EXPECT_EQ(results["authors"], nlohmann::json::array({"A. Author", "B. Author"}));
    EXPECT_EQ(results["e-mail"], "a@example.org");
    EXPECT_EQ(results["institution / company"], "Example Lab");
    EXPECT_EQ(results["country / region"], "DE");
    const fs::path pictures = work_dir / (std::string("vis_epoch_") + epoch);
    ASSERT_TRUE(fs::is_directory(pictures)) << pictures;
    EXPECT_EQ(std::distance(fs::directory_iterator(pictures), fs::directory_iterator()), 1);
  }
  const auto records = test::json_log_records(work_dir);
  int train = 0;
  int val = 0;
  for (const auto& record : records) {
    if (record["mode"] == "train") {
      ++train;
      EXPECT_TRUE(record.contains("lc_loss_cls")) << record.dump();
      EXPECT_TRUE(record.contains("grad_norm")) << record.dump();
    } else {
      ++val;
      EXPECT_TRUE(record.contains("OLS")) << record.dump();
    }
  }
  EXPECT_EQ(train, 8);
  EXPECT_EQ(val, 2);
}

TEST(TrainDsTrain, TheLossGoesDown) {
  const fs::path work_dir = test::scratch_dir("descent");
  const auto result =
      test::run_app("train_ds", train_args(work_dir, "runner.max_epochs=6 --no-validate"));
  ASSERT_EQ(result.exit_status, 0) << result.output;
  std::map<int, std::vector<double>> losses_by_epoch;
  for (const auto& record : test::json_log_records(work_dir)) {
    if (record["mode"] == "train")
      losses_by_epoch[record["epoch"].get<int>()].push_back(record["loss"].get<double>());
  }
  ASSERT_EQ(losses_by_epoch.size(), 6u);
  const auto mean = [](const std::vector<double>& values) {
    double sum = 0.0;
    for (double value : values) sum += value;
    return sum / static_cast<double>(values.size());
  };
  EXPECT_LT(mean(losses_by_epoch.rbegin()->second), 0.8 * mean(losses_by_epoch.begin()->second));
}

// The resumed run is given no --seed: it takes the checkpoint's, so its data order and
// augmentation (which derive from the seed) continue the first run's.
// Under SGD with momentum (mmdetection's optimizer; AdamW's resumes are the other tests'), whose
// momentum buffers the checkpoint carries.
TEST(TrainDsTrain, ResumeFromAMidEpochCheckpointContinuesTheExactTrajectory) {
  const std::string sgd = "optimizer.type=SGD optimizer.momentum=0.9 ";
  const fs::path full = test::scratch_dir("full");
  const auto first = test::run_app(
      "train_ds",
      train_args(full, sgd + "checkpoint_config.iter_interval=1 --no-validate --seed 5"));
  ASSERT_EQ(first.exit_status, 0) << first.output;
  ASSERT_TRUE(fs::exists(full / "iter_6.pth"));
  EXPECT_NE(first.output.find("setting optimizer.type = SGD"), std::string::npos) << first.output;
  EXPECT_NE(read_pth(full / "iter_6.pth")
                .at("optimizer")
                .at("state")
                .at(int64_t{0})
                .find("momentum_buffer"),
            nullptr);

  const fs::path resumed = test::scratch_dir("resumed");
  const std::string from = " --resume-from '" + (full / "iter_6.pth").string() + "'";
  const auto second = test::run_app("train_ds", train_args(resumed, sgd + "--no-validate" + from));
  ASSERT_EQ(second.exit_status, 0) << second.output;
  EXPECT_NE(second.output.find("seed 5 (the resumed checkpoint's)"), std::string::npos)
      << second.output;

  const NamedTensors expected = weights(full / "epoch_2.pth");
  const NamedTensors actual = weights(resumed / "epoch_2.pth");
  ASSERT_EQ(expected.size(), actual.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(expected[i].first, actual[i].first);
    EXPECT_TRUE(expected[i].second.equal(actual[i].second))
        << expected[i].first << " differs after resume";
  }

  const auto other_seed = test::run_app(
      "train_ds", train_args(test::scratch_dir("other_seed"), sgd + "--seed 6" + from));
  EXPECT_EQ(other_seed.exit_status, 2) << other_seed.output;
  EXPECT_NE(other_seed.output.find("--seed 6 differs from the seed 5 of"), std::string::npos)
      << other_seed.output;

  const auto other_batch = test::run_app(
      "train_ds",
      train_args(test::scratch_dir("other_batch"), sgd + "data.samples_per_gpu=2" + from));
  EXPECT_EQ(other_batch.exit_status, 2) << other_batch.output;
  EXPECT_NE(other_batch.output.find("samples_per_gpu is 2 in this run but 1 in the checkpoint"),
            std::string::npos)
      << other_batch.output;

  const auto other_accumulation =
      test::run_app("train_ds", train_args(test::scratch_dir("other_accumulation"),
                                           sgd + "data.gradient_accumulation_steps=2" + from));
  EXPECT_EQ(other_accumulation.exit_status, 2) << other_accumulation.output;
  EXPECT_NE(other_accumulation.output.find(
                "gradient_accumulation_steps is 2 in this run but 1 in the checkpoint"),
            std::string::npos)
      << other_accumulation.output;
}

// A loss weight of 1e308 (a finite double; the config refuses NaN and infinities) overflows the
// fp32 loss term to infinity.
TEST(TrainDsTrain, ANonFiniteLossStopsWithTheIterationAndTheTerms) {
  const fs::path work_dir = test::scratch_dir("inf");
  const auto result = test::run_app(
      "train_ds", train_args(work_dir, "model.lc_head.loss_cls.loss_weight=1e308 --no-validate"));
  EXPECT_EQ(result.exit_status, 1) << result.output;
  EXPECT_NE(result.output.find("non-finite loss inf at iter 1"), std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("lc_loss_cls inf"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace olv2
