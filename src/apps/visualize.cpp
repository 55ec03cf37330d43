// visualize: pictures of OpenLane-V2 frames, one PNG each: the bird's-eye view (ground-truth and
// predicted centerlines, lane topology, ego car, metre grid, the config's BEV range, else
// 100 m x 50 m) beside the front camera image (traffic-element boxes by attribute, lane links,
// lane projections).
#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/split_arguments.h"
#include "olv2/data/frame_reader.h"
#include "olv2/evaluation/results_reader.h"
#include "olv2/models/build.h"
#include "olv2/util/app_main.h"
#include "olv2/util/error.h"
#include "olv2/visualization/frame_figure.h"

namespace olv2::programs::visualize {

namespace {

namespace fs = std::filesystem;

constexpr int64_t kDefaultFrames = 8;

struct Arguments {
  olv2::SplitArguments dataset;
  fs::path results;
  fs::path out_dir;
  float score_threshold = 0.3f;
};

int run(const Arguments& args) {
  const std::optional<olv2::ConfigNode> config = args.dataset.load_config();
  olv2::FigureOptions options;
  if (config) {
    options.range =
        olv2::bev_area(olv2::detector_bev_range(config->at("model")), args.dataset.config);
  }
  options.score_threshold = args.score_threshold;
  const olv2::FrameIndex index = args.dataset.frame_index(args.dataset.split, config);
  std::optional<std::vector<olv2::FramePrediction>> predictions;
  if (!args.results.empty()) predictions = olv2::read_results_file(args.results);
  const std::vector<fs::path> written = olv2::write_frame_figures(
      index, predictions ? &*predictions : nullptr, index.size(), options, args.out_dir);
  for (const fs::path& path : written) std::printf("%s\n", path.string().c_str());
  std::printf("visualize: %zu pictures in %s\n", written.size(), args.out_dir.string().c_str());
  return static_cast<int>(olv2::ExitStatus::kSuccess);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Draw OpenLane-V2 frames with their ground truth and predictions as PNG files."};
  Arguments args;
  olv2::add_split_options(app, args.dataset, "draw", /*split_required=*/true,
                          /*frame_limit=*/true);
  app.get_option("--max-frames")->description("only the first N frames of the split (default 8)");
  app.add_option("--results", args.results, "results JSON whose predictions are drawn too")
      ->check(CLI::ExistingFile);
  app.add_option("--out-dir", args.out_dir, "folder for the PNG files (created)")->required();
  app.add_option("--score-threshold", args.score_threshold,
                 "draw predictions scoring at least this (default 0.3)")
      ->check(CLI::Range(0.0f, 1.0f));
  if (const auto status = olv2::parse_command_line(app, "visualize", argc, argv)) return *status;
  // The first 8 frames unless --max-frames says otherwise: a picture per frame of a whole split
  // is rarely what is wanted.
  if (!args.dataset.max_frames) args.dataset.max_frames = kDefaultFrames;
  return olv2::guarded_main("visualize", [&] { return run(args); });
}

}  // namespace olv2::programs::visualize
