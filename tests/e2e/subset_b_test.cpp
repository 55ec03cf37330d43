// OpenLane-V2 subset B (six nuScenes cameras) as a user meets it: configs/baseline_subset_B.yaml
// trains and validates on subset-B frames, visualize draws them, and a subset-A config refuses
// them naming a frame.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "olv2/data/frame_reader.h"
#include "support/json_log_records.h"
#include "support/run_command.h"
#include "support/synthetic_dataset.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

fs::path subset_b_dataset() {
  return test::synthetic_dataset(
      "subset_b_e2e", "--subset B --frames 3 --val-frames 2 --image-scale 0.0625 --seed 5");
}

std::string on_the_dataset() {
  const std::string root = subset_b_dataset().string();
  return "data_root='" + root + "' meta_root='" + root +
         "' data.train.collection=data_dict_synthetic_train"
         " data.val.collection=data_dict_synthetic_val"
         " data.test.collection=data_dict_synthetic_val";
}

TEST(SubsetB, TheSyntheticFramesHaveTheSixNuScenesCameras) {
  const fs::path root = subset_b_dataset();
  const FrameIndex index(root, root / "data_dict_synthetic.json", "val");
  const Frame frame = index.load(0);
  EXPECT_EQ(frame.subset, Subset::kB);
  ASSERT_EQ(frame.cameras.size(), 6u);
  for (size_t c = 0; c < frame.cameras.size(); ++c) {
    EXPECT_EQ(frame.cameras[c].name, kSubsetBCameraNames[c]);
    const cv::Mat image = cv::imread((root / frame.cameras[c].image_path).string());
    EXPECT_EQ(image.cols, 100) << frame.cameras[c].name;  // 1600 x 900 at 1/16
    EXPECT_EQ(image.rows, 56) << frame.cameras[c].name;
  }
  EXPECT_TRUE(frame.has_annotation);
}

// The shipped subset-B config, shrunk to one epoch on the synthetic frames: it trains, and its
// validation scores the val split.
TEST(SubsetB, TheSubsetBConfigTrainsAndValidates) {
  const fs::path work_dir = test::scratch_dir("subset_b_train");
  const auto trained =
      test::run_app("train_ds", (test::source_dir() / "configs/baseline_subset_B.yaml").string() +
                                    " --work-dir '" + work_dir.string() +
                                    "' --cfg-options model.img_backbone.init_cfg=null "
                                    "model.img_backbone.with_cp=false runner.max_epochs=1 "
                                    "data.samples_per_gpu=1 data.workers_per_gpu=1 threads=1 "
                                    "evaluation.interval=1 log_config.interval=1 " +
                                    on_the_dataset());
  ASSERT_EQ(trained.exit_status, 0) << trained.output;
  const std::vector<nlohmann::json> train = test::json_log_records(work_dir, "train");
  ASSERT_EQ(train.size(), 1u);  // one frame a step
  EXPECT_TRUE(std::isfinite(train[0].at("loss").get<double>())) << train[0].dump();
  const std::vector<nlohmann::json> val = test::json_log_records(work_dir, "val");
  ASSERT_EQ(val.size(), 1u);
  const double ols = val[0].at("OLS").get<double>();
  EXPECT_GE(ols, 0.0);
  EXPECT_LE(ols, 1.0);
  EXPECT_TRUE(fs::exists(work_dir / "results_epoch_1.json"));
}

// baseline.yaml's datasets are of subset A: subset-B frames stop the run at the first frame,
// named, with what its type says.
TEST(SubsetB, ASubsetAConfigRefusesSubsetBFrames) {
  const fs::path work_dir = test::scratch_dir("subset_b_refused");
  const auto refused = test::run_app(
      "train_ds", (test::source_dir() / "configs/tests/tiny.yaml").string() + " --work-dir '" +
                      work_dir.string() + "' --no-validate --cfg-options runner.max_epochs=1 " +
                      on_the_dataset());
  EXPECT_EQ(refused.exit_status, 2) << refused.output;
  EXPECT_NE(refused.output.find("key `sensor`: the cameras of subset B, but the dataset is of "
                                "subset A (its `type`)"),
            std::string::npos)
      << refused.output;
  EXPECT_NE(refused.output.find("/info/"), std::string::npos) << refused.output;
}

TEST(SubsetB, VisualizeDrawsSubsetBFramesWithTheFrontCamera) {
  const fs::path out = test::scratch_dir("subset_b_pictures");
  const auto drawn = test::run_app(
      "visualize",
      "--data-root '" + subset_b_dataset().string() +
          "' --collection data_dict_synthetic.json --split val --max-frames 2 --out-dir '" +
          out.string() + "'");
  ASSERT_EQ(drawn.exit_status, 0) << drawn.output;
  size_t pictures = 0;
  for (const auto& entry : fs::directory_iterator(out)) {
    EXPECT_FALSE(cv::imread(entry.path().string()).empty()) << entry.path();
    ++pictures;
  }
  EXPECT_EQ(pictures, 2u);
}

}  // namespace
}  // namespace olv2
