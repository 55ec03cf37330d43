// evaluate: scores predictions (a results JSON or a submission pickle) against OpenLane-V2 ground
// truth (the info files of a collection or the devkit's ground-truth pickle) with the official
// metrics of its task: lane centerlines (DET_l, DET_t, TOP_ll, TOP_lt, OLS, F-Score) of the
// devkit's v1.1 or v1.0, or lane segments (DET_l, DET_a, DET_t, TOP_ll, TOP_lt, UniScore) of the
// devkit 2.x, with LaneSegNet's own numbers when the frames are LaneSegNet's collection.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/split_arguments.h"
#include "olv2/config/config_node.h"
#include "olv2/evaluation/devkit_pickles.h"
#include "olv2/evaluation/evaluator.h"
#include "olv2/evaluation/ground_truth.h"
#include "olv2/evaluation/results_reader.h"
#include "olv2/util/app_main.h"
#include "olv2/util/error.h"
#include "olv2/util/filesystem.h"

namespace olv2::programs::evaluate {

namespace {

namespace fs = std::filesystem;

struct Arguments {
  olv2::SplitArguments dataset;
  fs::path ground_truth;  // the devkit's pickle, in place of the info files
  fs::path results;
  fs::path out;
  std::string metric_version;  // empty: the config's `evaluation.metric_version`, else v1.1
};

std::vector<olv2::FrameGroundTruth> read_ground_truth(
    const Arguments& args, const std::optional<olv2::ConfigNode>& config) {
  const bool data_flags = !args.dataset.data_root.empty() || !args.dataset.collection.empty();
  if (!args.ground_truth.empty()) {
    if (data_flags) {
      throw olv2::input_error(
          "--ground-truth replaces --data-root and --collection: give one or the other");
    }
    std::vector<olv2::FrameGroundTruth> frames =
        olv2::read_ground_truth_file(args.ground_truth, args.dataset.split);
    const auto limit = static_cast<size_t>(args.dataset.max_frames.value_or(0));
    if (limit > 0 && frames.size() > limit) frames.resize(limit);
    return frames;
  }
  if (!data_flags && !args.dataset.has_config()) {
    throw olv2::input_error(
        "name the ground truth: a config (CONFIG --split val), --data-root and --collection "
        "(the info files), or --ground-truth (the devkit's pickle)");
  }
  return olv2::load_ground_truth(args.dataset.frame_index(args.dataset.split, config));
}

olv2::MetricVersion metric_version(const Arguments& args,
                                   const std::optional<olv2::ConfigNode>& config) {
  if (!args.metric_version.empty()) {
    return olv2::metric_version_from_string(args.metric_version, "--metric-version");
  }
  if (config) {
    if (const olv2::ConfigNode* evaluation = config->find("evaluation")) {
      if (const olv2::ConfigNode* version = evaluation->find("metric_version")) {
        return olv2::metric_version_from_string(version->as_string(), version->where());
      }
    }
  }
  return olv2::MetricVersion::kV1_1;
}

int run(const Arguments& args) {
  const std::optional<olv2::ConfigNode> config = args.dataset.load_config();
  const std::vector<olv2::FrameGroundTruth> ground_truth = read_ground_truth(args, config);
  std::vector<olv2::FrameId> frames;
  frames.reserve(ground_truth.size());
  for (const olv2::FrameGroundTruth& frame : ground_truth) frames.push_back(frame.frame);
  std::vector<olv2::FramePrediction> predictions =
      olv2::is_pickle_file(args.results)
          ? olv2::align_to_frames(olv2::read_submission_file(args.results), frames,
                                  args.results.string())
          : olv2::read_results_file(args.results, frames);
  const olv2::EvaluationMetrics metrics =
      olv2::evaluate(ground_truth, predictions, metric_version(args, config));
  std::cout << olv2::format_metrics_table(metrics) << std::flush;
  if (!args.out.empty()) {
    olv2::write_file_atomic(args.out, olv2::metrics_to_json(metrics).dump(1) + "\n");
  }
  return static_cast<int>(olv2::ExitStatus::kSuccess);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Score a results file with the official OpenLane-V2 metrics of its task (lane centerlines "
      "or lane segments)."};
  Arguments args;
  olv2::add_split_options(app, args.dataset, "score", /*split_required=*/true,
                          /*frame_limit=*/true);
  app.add_option("--ground-truth", args.ground_truth,
                 "the devkit's ground-truth pickle (data_dict_subset_A_val.pkl), in place of "
                 "--data-root and --collection or a config's data section")
      ->check(CLI::ExistingFile);
  app.add_option("--results", args.results,
                 "predictions to score: a results JSON or a submission pickle")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--out", args.out, "write the metrics as JSON to this file too");
  app.add_option("--metric-version", args.metric_version,
                 "lane centerlines: the devkit's TOP definitions, v1.1 (tag v1.1.0) or v1.0 (tag "
                 "v1.0.0) (default: the config's evaluation.metric_version, else v1.1)")
      ->check(CLI::IsMember({"v1.1", "v1.0"}));
  if (const auto status = olv2::parse_command_line(app, "evaluate", argc, argv)) return *status;
  return olv2::guarded_main("evaluate", [&] { return run(args); });
}

}  // namespace olv2::programs::evaluate
