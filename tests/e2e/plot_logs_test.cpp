// scripts/plot_logs.py as a user runs it on train_ds's `.log.json` files, under Debian's
// /usr/bin/python3 and its matplotlib: a PNG per quantity, a line per run in matplotlib's colours.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_command.h"
#include "support/temp_files.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

const char* const kPlotLogsPython = "/usr/bin/python3";
// matplotlib's first two colours of its default cycle (C0 #1f77b4, C1 #ff7f0e), in OpenCV's BGR.
const cv::Vec3b kPlotLogsFirstColour(0xb4, 0x77, 0x1f);
const cv::Vec3b kPlotLogsSecondColour(0x0e, 0x7f, 0xff);
// Antialiasing blends a line's edges into the background; its core stays within this per channel.
constexpr int kPlotLogsColourTolerance = 20;
// A series drawn across an 800 x 500 figure has about 1000 pixels of its colour; its legend entry
// alone, or a line hidden under the other run's, about 75.
constexpr int kPlotLogsMinLinePixels = 300;

// A missing matplotlib fails the tests rather than skipping them: the script is part of the
// project and scripts/install_test_deps.sh installs its one dependency.
const char* const kPlotLogsNoMatplotlib =
    "/usr/bin/python3 cannot import matplotlib: run scripts/install_test_deps.sh "
    "(python3-matplotlib)";

bool plot_logs_has_matplotlib() {
  static const bool available =
      test::run_command(std::string(kPlotLogsPython) + " -c 'import matplotlib'").exit_status == 0;
  return available;
}

// A run's log as train_ds writes it: a line that is no record, then 3 epochs of 4 train records
// (iter 5, 10, 15, 20 of each epoch) with the loss falling, and a val record after each epoch.
// `scale` sets the run apart from another: its losses times `scale`, its OLS divided by it.
std::string plot_logs_run(double scale) {
  std::ostringstream log;
  log << R"({"env_info": "sys.platform: linux", "seed": 0})"
      << "\n";
  for (int epoch = 1; epoch <= 3; ++epoch) {
    for (int iter = 5; iter <= 20; iter += 5) {
      const int step = (epoch - 1) * 20 + iter;
      const double cls = scale * 8.0 / (4.0 + step);
      const double layer0_cls = 1.2 * cls;
      const double iou = scale * 2.0 / (2.0 + step);
      log << R"({"mode": "train", "epoch": )" << epoch << R"(, "iter": )" << iter
          << R"(, "lr": 0.0001, "memory": 812, "data_time": 0.01, "lane_head.loss_lane_cls": )"
          << cls << R"(, "lane_head.d0.loss_lane_cls": )" << layer0_cls
          << R"(, "bbox_head.loss_iou": )" << iou << R"(, "loss": )" << cls + layer0_cls + iou
          << R"(, "grad_norm": )" << 30.0 / step << R"(, "time": 0.5})"
          << "\n";
    }
    log << R"({"mode": "val", "epoch": )" << epoch << R"(, "iter": )" << epoch * 20
        << R"(, "lr": 0.0001, "DET_l": )" << 0.1 * epoch << R"(, "DET_t": 0.4, "TOP_ll": 0.01, )"
        << R"("TOP_lt": 0.02, "OLS": )" << 0.2 + 0.1 * epoch / scale << R"(, "F-Score": 0.3})"
        << "\n";
  }
  return log.str();
}

test::CommandResult plot_logs(const std::vector<std::string>& arguments) {
  const fs::path script = test::source_dir() / "scripts" / "plot_logs.py";
  std::vector<std::string> words = {script.string()};
  words.insert(words.end(), arguments.begin(), arguments.end());
  return test::run_command(kPlotLogsPython + test::shell_words(words));
}

int plot_logs_pixels_of(const cv::Mat& image, const cv::Vec3b& colour) {
  int count = 0;
  for (int y = 0; y < image.rows; ++y) {
    for (int x = 0; x < image.cols; ++x) {
      const cv::Vec3b& pixel = image.at<cv::Vec3b>(y, x);
      int difference = 0;
      for (int channel = 0; channel < 3; ++channel) {
        difference = std::max(difference, std::abs(pixel[channel] - colour[channel]));
      }
      if (difference <= kPlotLogsColourTolerance) ++count;
    }
  }
  return count;
}

// Reads `png`, adding a failure unless it is a figure of a sensible size.
cv::Mat plot_logs_figure(const fs::path& png) {
  const cv::Mat image = cv::imread(png.string());
  EXPECT_FALSE(image.empty()) << png << " does not decode as an image";
  EXPECT_GE(image.cols, 640) << png;
  EXPECT_GE(image.rows, 400) << png;
  return image;
}

TEST(PlotLogs, DrawsAFigurePerQuantityWithALinePerRun) {
  ASSERT_TRUE(plot_logs_has_matplotlib()) << kPlotLogsNoMatplotlib;
  const fs::path scratch = test::scratch_dir("plot_logs");
  const fs::path first =
      test::write_text(scratch / "run_a", "20261204_131501.log.json", plot_logs_run(1.0));
  const fs::path second =
      test::write_text(scratch / "run_b", "20261205_090000.log.json", plot_logs_run(1.5));
  const fs::path out = scratch / "plots";
  const test::CommandResult result = plot_logs(
      {first.string(), second.string(), "--out-dir", out.string(), "--title", "subset A"});
  ASSERT_EQ(result.exit_status, 0) << result.output;
  for (const char* name : {"loss", "lr", "grad_norm", "OLS", "DET_l", "DET_t", "TOP_ll", "TOP_lt",
                           "F-Score", "loss_terms"}) {
    SCOPED_TRACE(name);
    const fs::path png = out / (std::string(name) + ".png");
    ASSERT_TRUE(fs::exists(png)) << result.output;
    EXPECT_NE(result.output.find(png.string() + "\n"), std::string::npos) << result.output;
    plot_logs_figure(png);
  }
  for (const char* name : {"loss", "OLS"}) {
    SCOPED_TRACE(name);
    const cv::Mat image = plot_logs_figure(out / (std::string(name) + ".png"));
    EXPECT_GE(plot_logs_pixels_of(image, kPlotLogsFirstColour), kPlotLogsMinLinePixels);
    EXPECT_GE(plot_logs_pixels_of(image, kPlotLogsSecondColour), kPlotLogsMinLinePixels);
  }
}

TEST(PlotLogs, AnUnknownKeyExitsTwoNamingItAndTheAvailableKeys) {
  ASSERT_TRUE(plot_logs_has_matplotlib()) << kPlotLogsNoMatplotlib;
  const fs::path scratch = test::scratch_dir("plot_logs_unknown_key");
  const fs::path log = test::write_text(scratch / "run", "run.log.json", plot_logs_run(1.0));
  const test::CommandResult result = plot_logs(
      {log.string(), "--out-dir", (scratch / "plots").string(), "--keys", "loss", "no_such_key"});
  EXPECT_EQ(result.exit_status, 2) << result.output;
  EXPECT_NE(result.output.find("plot_logs: error: "), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("no_such_key"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("grad_norm"), std::string::npos) << result.output;
  EXPECT_FALSE(fs::exists(scratch / "plots" / "loss.png"));
}

TEST(PlotLogs, ALegendNamePerFileOrAnError) {
  ASSERT_TRUE(plot_logs_has_matplotlib()) << kPlotLogsNoMatplotlib;
  const fs::path scratch = test::scratch_dir("plot_logs_legend");
  const fs::path log = test::write_text(scratch / "run", "run.log.json", plot_logs_run(1.0));
  const test::CommandResult result =
      plot_logs({log.string(), "--out-dir", (scratch / "plots").string(), "--legend", "a", "b"});
  EXPECT_EQ(result.exit_status, 2) << result.output;
  EXPECT_NE(result.output.find("plot_logs: error: "), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("--legend"), std::string::npos) << result.output;
}

TEST(PlotLogs, ALogWithoutTrainRecordsIsAnErrorNamingIt) {
  ASSERT_TRUE(plot_logs_has_matplotlib()) << kPlotLogsNoMatplotlib;
  const fs::path scratch = test::scratch_dir("plot_logs_no_train");
  const fs::path log =
      test::write_text(scratch / "run", "val_only.log.json",
                       R"({"mode": "val", "epoch": 1, "iter": 20, "lr": 0.0001, "OLS": 0.3})"
                       "\n");
  const test::CommandResult result =
      plot_logs({log.string(), "--out-dir", (scratch / "plots").string()});
  EXPECT_EQ(result.exit_status, 2) << result.output;
  EXPECT_NE(result.output.find("plot_logs: error: "), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("val_only.log.json"), std::string::npos) << result.output;
}

// A killed run's log ends in half a record: it is skipped with a warning naming the file and
// the line, and the records before it are plotted.
TEST(PlotLogs, ATruncatedLastLineIsSkippedWithAWarning) {
  ASSERT_TRUE(plot_logs_has_matplotlib()) << kPlotLogsNoMatplotlib;
  const fs::path scratch = test::scratch_dir("plot_logs_truncated");
  const fs::path log =
      test::write_text(scratch / "killed", "killed.log.json",
                       plot_logs_run(1.0) + R"({"mode": "train", "epoch": 4, "iter": 5, "lr)");
  const fs::path out = scratch / "plots";
  const test::CommandResult result = plot_logs({log.string(), "--out-dir", out.string()});
  ASSERT_EQ(result.exit_status, 0) << result.output;
  EXPECT_NE(result.output.find("warning"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("killed.log.json line 17"), std::string::npos) << result.output;
  const cv::Mat image = plot_logs_figure(out / "loss.png");
  EXPECT_GE(plot_logs_pixels_of(image, kPlotLogsFirstColour), kPlotLogsMinLinePixels);
}

}  // namespace
}  // namespace olv2
