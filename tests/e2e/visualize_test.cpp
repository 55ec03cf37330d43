// `visualize` as a user runs it: ground truth alone or with a results file, one PNG per frame.
#include <gtest/gtest.h>

#include <fstream>
#include <opencv2/imgcodecs.hpp>

#include "olv2/data/frame_reader.h"
#include "olv2/evaluation/results_writer.h"
#include "support/run_command.h"
#include "support/synthetic_dataset.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

fs::path visualize_dataset() {
  return test::synthetic_dataset("visualize_e2e", "--frames 4 --val-frames 3 --seed 8");
}

std::string arguments(const fs::path& out, const std::string& extra) {
  return "--data-root '" + visualize_dataset().string() +
         "' --collection data_dict_synthetic.json " + "--split val --out-dir '" + out.string() +
         "' " + extra;
}

TEST(Visualize, DrawsTheFirstFramesOfASplitWithTheirPredictions) {
  const fs::path scratch = test::scratch_dir("visualize");
  std::vector<FramePrediction> predictions;
  for (const FrameKey& key :
       read_collection(visualize_dataset() / "data_dict_synthetic.json", "val")) {
    FramePrediction prediction;
    prediction.frame = {key.split, key.segment_id, key.timestamp};
    prediction.lanes = {{{{5.0f, 0.0f, 0.0f}, {25.0f, 0.0f, 0.0f}}, 0.8f}};
    prediction.traffic_elements = {{{10, 10, 20, 30}, 1, 0.6f}};
    prediction.topology_lclc = {0.0f};
    prediction.topology_lcte = {0.9f};
    predictions.push_back(prediction);
  }
  write_results_file(scratch / "results.json", predictions);
  const fs::path out = scratch / "pictures";
  const test::CommandResult result = test::run_app(
      "visualize",
      arguments(out, "--max-frames 2 --results '" + (scratch / "results.json").string() + "'"));
  ASSERT_EQ(result.exit_status, 0) << result.output;
  EXPECT_NE(result.output.find("2 pictures"), std::string::npos) << result.output;
  size_t pictures = 0;
  for (const auto& entry : fs::directory_iterator(out)) {
    const cv::Mat image = cv::imread(entry.path().string());
    EXPECT_GE(image.cols, 800) << entry.path();
    EXPECT_GE(image.rows, 400) << entry.path();
    ++pictures;
  }
  EXPECT_EQ(pictures, 2u);
}

TEST(Visualize, AConfigWithoutABevRangeIsABadInputNamingIt) {
  const fs::path scratch = test::scratch_dir("visualize_bad_config");
  std::ofstream(scratch / "no_range.yaml") << "model:\n  type: Baseline\n";
  const test::CommandResult result = test::run_app(
      "visualize",
      arguments(scratch / "pictures", "'" + (scratch / "no_range.yaml").string() + "'"));
  EXPECT_EQ(result.exit_status, 2) << result.output;
  EXPECT_NE(result.output.find("no_range.yaml"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace olv2
