// evaluate: scores predictions (a results JSON or a submission pickle) against OpenLane-V2 ground
// truth (the info files of a collection or the devkit's ground-truth pickle) with the official
// centerline metrics (DET_l, DET_t, TOP_ll, TOP_lt, OLS, F-Score) of the devkit's v1.1 or v1.0.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/split_arguments.h"
#include "olv2/evaluation/devkit_pickles.h"
#include "olv2/evaluation/evaluator.h"
#include "olv2/evaluation/ground_truth.h"
#include "olv2/evaluation/results_reader.h"
#include "olv2/util/app_main.h"
#include "olv2/util/error.h"

namespace {

namespace fs = std::filesystem;

struct Arguments {
  olv2::SplitArguments dataset;
  fs::path ground_truth;  // the devkit's pickle, in place of the info files
  fs::path results;
  fs::path json_out;
  std::string metric_version = "v1.1";
};

void write_json(const fs::path& path, const nlohmann::ordered_json& json) {
  std::ofstream out(path);
  if (!out) throw olv2::input_error("--json-out " + path.string() + ": cannot open for writing");
  out << json.dump(1) << '\n';
  if (!out) throw olv2::runtime_error("--json-out " + path.string() + ": write failed");
}

std::vector<olv2::FrameGroundTruth> read_ground_truth(const Arguments& args) {
  const bool from_files = !args.dataset.data_root.empty() || !args.dataset.collection.empty();
  if (from_files == !args.ground_truth.empty()) {
    throw olv2::input_error(
        "give the ground truth either as --data-root and --collection (the info "
        "files) or as --ground-truth (the devkit's pickle)");
  }
  if (!from_files) return olv2::read_ground_truth_file(args.ground_truth, args.dataset.split);
  if (args.dataset.data_root.empty() || args.dataset.collection.empty()) {
    throw olv2::input_error("--data-root and --collection go together");
  }
  return olv2::load_ground_truth(args.dataset.data_root, args.dataset.collection_file(),
                                 args.dataset.split);
}

int run(const Arguments& args) {
  const std::vector<olv2::FrameGroundTruth> ground_truth = read_ground_truth(args);
  std::vector<olv2::FrameId> frames;
  frames.reserve(ground_truth.size());
  for (const olv2::FrameGroundTruth& frame : ground_truth) frames.push_back(frame.frame);
  std::vector<olv2::FramePrediction> predictions =
      olv2::is_pickle_file(args.results)
          ? olv2::align_to_frames(olv2::read_submission_file(args.results), frames,
                                  args.results.string())
          : olv2::read_results_file(args.results, frames);
  const olv2::EvaluationMetrics metrics =
      olv2::evaluate(ground_truth, predictions,
                     olv2::metric_version_from_string(args.metric_version, "--metric-version"));
  std::cout << olv2::format_metrics_table(metrics) << std::flush;
  if (!args.json_out.empty()) write_json(args.json_out, olv2::metrics_to_json(metrics));
  return static_cast<int>(olv2::ExitStatus::kSuccess);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Scores a results file with the official OpenLane-V2 centerline metrics."};
  Arguments args;
  olv2::add_split_options(app, args.dataset, "score", /*frames_required=*/false);
  app.add_option("--ground-truth", args.ground_truth,
                 "the devkit's ground-truth pickle (data_dict_subset_A_val.pkl), in place of "
                 "--data-root and --collection")
      ->check(CLI::ExistingFile);
  app.add_option("--results", args.results,
                 "predictions to score: a results JSON or a submission pickle")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--json-out", args.json_out, "also write the metrics as JSON here");
  app.add_option("--metric-version", args.metric_version,
                 "the devkit's TOP definitions: v1.1 (tag v1.1.0) or v1.0 (tag v1.0.0)")
      ->check(CLI::IsMember({"v1.1", "v1.0"}))
      ->capture_default_str();
  if (const auto status = olv2::parse_command_line(app, "evaluate", argc, argv)) return *status;
  return olv2::guarded_main("evaluate", [&] { return run(args); });
}
