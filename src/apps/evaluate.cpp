// evaluate: scores a JSON results file against OpenLane-V2 ground truth with the official
// centerline metrics (DET_l, DET_t, TOP_ll, TOP_lt, OLS).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "olv2/evaluation/evaluator.h"
#include "olv2/evaluation/ground_truth.h"
#include "olv2/evaluation/results_reader.h"
#include "olv2/util/app_main.h"
#include "olv2/util/error.h"

namespace {

namespace fs = std::filesystem;

struct Arguments {
  fs::path data_root;
  fs::path collection;
  std::string split;
  fs::path results;
  fs::path json_out;
};

// A relative collection path that does not exist as given is looked up under the data root.
fs::path resolve_collection(const Arguments& args) {
  if (args.collection.is_relative() && !fs::exists(args.collection) &&
      fs::exists(args.data_root / args.collection)) {
    return args.data_root / args.collection;
  }
  return args.collection;
}

void write_json(const fs::path& path, const nlohmann::ordered_json& json) {
  std::ofstream out(path);
  if (!out) throw olv2::input_error("--json-out " + path.string() + ": cannot open for writing");
  out << json.dump(1) << '\n';
  if (!out) throw olv2::runtime_error("--json-out " + path.string() + ": write failed");
}

int run(const Arguments& args) {
  const std::vector<olv2::FrameGroundTruth> ground_truth =
      olv2::load_ground_truth(args.data_root, resolve_collection(args), args.split);
  std::vector<olv2::FrameId> frames;
  frames.reserve(ground_truth.size());
  for (const olv2::FrameGroundTruth& frame : ground_truth) frames.push_back(frame.frame);
  const olv2::EvaluationMetrics metrics =
      olv2::evaluate(ground_truth, olv2::read_results_file(args.results, frames));
  std::cout << olv2::format_metrics_table(metrics) << std::flush;
  if (!args.json_out.empty()) write_json(args.json_out, olv2::metrics_to_json(metrics));
  return static_cast<int>(olv2::ExitStatus::kSuccess);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Scores a results file with the official OpenLane-V2 centerline metrics."};
  Arguments args;
  app.add_option("--data-root", args.data_root, "dataset root holding <split>/<segment>/info/")
      ->required();
  app.add_option("--collection", args.collection,
                 "collection JSON {split: {segment: [\"<timestamp>.json\", ...]}}")
      ->required();
  app.add_option("--split", args.split, "split of the collection to score (e.g. val)")->required();
  app.add_option("--results", args.results, "results JSON to score")->required();
  app.add_option("--json-out", args.json_out, "also write the metrics as JSON here");
  if (const auto status = olv2::parse_command_line(app, "evaluate", argc, argv)) return *status;
  return olv2::guarded_main("evaluate", [&] { return run(args); });
}
