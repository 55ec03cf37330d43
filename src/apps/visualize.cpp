// visualize: pictures of OpenLane-V2 frames, one PNG each: the bird's-eye view (ground-truth and
// predicted centerlines, lane topology, ego car, metre grid, the config's BEV range) beside the
// front camera image (traffic-element boxes by attribute, lane links, lane projections).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/split_arguments.h"
#include "olv2/config/config_loader.h"
#include "olv2/data/frame_reader.h"
#include "olv2/evaluation/results_reader.h"
#include "olv2/models/build.h"
#include "olv2/util/app_main.h"
#include "olv2/util/error.h"
#include "olv2/visualization/frame_figure.h"

namespace {

namespace fs = std::filesystem;

struct Arguments {
  olv2::SplitArguments dataset;
  fs::path results;
  fs::path out;
  size_t frames = 8;
  float score_threshold = 0.3f;
  fs::path config = "configs/baseline.yaml";
};

int run(const Arguments& args) {
  olv2::FigureOptions options;
  options.range =
      olv2::bev_area(olv2::detector_bev_range(olv2::load_config_file(args.config).at("model")),
                     args.config.string());
  options.score_threshold = args.score_threshold;
  const olv2::FrameIndex index(args.dataset.data_root, args.dataset.collection_file(),
                               args.dataset.split);
  std::optional<std::vector<olv2::FramePrediction>> predictions;
  if (!args.results.empty()) predictions = olv2::read_results_file(args.results);
  const std::vector<fs::path> written = olv2::write_frame_figures(
      index, predictions ? &*predictions : nullptr, args.frames, options, args.out);
  for (const fs::path& path : written) std::printf("%s\n", path.string().c_str());
  std::printf("visualize: %zu pictures in %s\n", written.size(), args.out.string().c_str());
  return static_cast<int>(olv2::ExitStatus::kSuccess);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Draws OpenLane-V2 frames with their ground truth and predictions as PNG files."};
  Arguments args;
  olv2::add_split_options(app, args.dataset, "draw");
  app.add_option("--results", args.results, "results JSON whose predictions are drawn too")
      ->check(CLI::ExistingFile);
  app.add_option("--out", args.out, "folder for the PNG files (created)")->required();
  app.add_option("--frames", args.frames, "frames to draw, from the split's first (default 8)")
      ->check(CLI::PositiveNumber);
  app.add_option("--score-threshold", args.score_threshold,
                 "draw predictions scoring at least this (default 0.3)")
      ->check(CLI::Range(0.0f, 1.0f));
  app.add_option("--config", args.config,
                 "config whose BEV range the picture shows (default configs/baseline.yaml)")
      ->check(CLI::ExistingFile);
  if (const auto status = olv2::parse_command_line(app, "visualize", argc, argv)) return *status;
  return olv2::guarded_main("visualize", [&] { return run(args); });
}
