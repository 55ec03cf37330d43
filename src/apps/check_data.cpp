// check_data: walks an OpenLane-V2 dataset (a config's splits, or a collection's) the way
// training reads it and reports what it finds.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/split_arguments.h"
#include "olv2/data/dataset.h"
#include "olv2/data/dataset_check.h"
#include "olv2/data/frame_reader.h"
#include "olv2/data/pipeline.h"
#include "olv2/data/sample_dump.h"
#include "olv2/util/allocator_tuning.h"
#include "olv2/util/app_main.h"
#include "olv2/util/error.h"
#include "olv2/util/pth/pth_file.h"

namespace olv2::programs::check_data {

namespace {

struct Arguments {
  olv2::SplitArguments dataset;
  bool decode = false;
  std::string dump_out;
};

// The pipeline --dump-out runs for `split`: the train pipeline without the (random) photometric
// distortion for train, the split's own section's (test) pipeline otherwise, val's for a split
// the config has no section of.
olv2::Pipeline dump_pipeline(const olv2::ConfigNode& config, const std::string& split) {
  const olv2::ConfigNode& data = config.at("data");
  if (split == "train") {
    return olv2::build_pipeline(data.at("train").at("pipeline"),
                                {"PhotoMetricDistortionMultiViewImage"});
  }
  const olv2::ConfigNode* own = data.find(split);
  return olv2::build_pipeline((own != nullptr ? *own : data.at("val")).at("pipeline"));
}

// Runs the dump pipeline on every frame; failures count as problems of the report.
void dump_split(const olv2::FrameIndex& index, const olv2::Pipeline& pipeline,
                olv2::DatasetCheckReport& report, olv2::PthDictItems& out) {
  const olv2::OpenLaneV2Dataset dataset(index, pipeline, olv2::DatasetOptions{});
  for (size_t i = 0; i < dataset.size(); ++i) {
    try {
      olv2::append_sample_dump(dataset.get(i, 0), index.split(), out);
    } catch (const olv2::Error& e) {
      report.add_problem("pipeline error", e.what(), 5);
    }
  }
  olv2::append_sample_order(index.keys(), index.split(), out);
}

// The splits to check: --split, else every section of the config (train, val, test) or every
// split of the collection, in file order.
std::vector<std::string> splits_to_check(const Arguments& args,
                                         const std::optional<olv2::ConfigNode>& config) {
  if (!args.dataset.split.empty()) return {args.dataset.split};
  if (!args.dataset.frames_from_config()) {
    return olv2::read_collection_splits(args.dataset.collection_file());
  }
  std::vector<std::string> splits;
  for (const char* section : {"train", "val", "test"}) {
    if (config->at("data").has(section)) splits.emplace_back(section);
  }
  return splits;
}

int run(const Arguments& args) {
  if (!args.dump_out.empty() && !args.dataset.has_config()) {
    throw olv2::input_error("--dump-out " + args.dump_out +
                            ": needs a config, whose pipelines it runs (check_data CONFIG ...)");
  }
  const std::optional<olv2::ConfigNode> config = args.dataset.load_config();

  olv2::DatasetCheckOptions options;
  options.decode = args.decode;
  int64_t problems = 0;
  olv2::PthDictItems dumped;
  // The configs point several sections at one split (test at val): each is checked once.
  std::set<std::string> checked;
  for (const std::string& split : splits_to_check(args, config)) {
    const olv2::FrameIndex index = args.dataset.frame_index(split, config);
    const std::string where = index.collection_file().string() + ":" + index.split();
    if (!checked.insert(where).second) {
      std::printf("%s: the same frames as checked above (%s)\n", split.c_str(), where.c_str());
      continue;
    }
    olv2::DatasetCheckReport report = olv2::check_dataset(index, options);
    if (!args.dump_out.empty()) dump_split(index, dump_pipeline(*config, split), report, dumped);
    std::printf("%s\n", olv2::format_check_report(report).c_str());
    problems += report.problem_count();
  }
  if (!args.dump_out.empty()) {
    olv2::write_pth(args.dump_out, olv2::PthValue::dict(std::move(dumped)));
    std::printf("wrote %s\n", args.dump_out.c_str());
  }
  std::printf("check_data: %s\n", problems == 0
                                      ? "no problems found"
                                      : (std::to_string(problems) + " problem(s) found").c_str());
  return problems == 0 ? 0 : static_cast<int>(olv2::ExitStatus::kFailure);
}

}  // namespace

int main(int argc, char** argv) {
  olv2::install_memory_reusing_allocators();
  Arguments args;
  CLI::App app{
      "Check an OpenLane-V2 dataset: read every frame and image the way training does and print "
      "a summary. Exit status: 0 clean, 1 problems found, 2 bad invocation."};
  olv2::add_split_options(app, args.dataset, "check (default: every one)",
                          /*split_required=*/false, /*frame_limit=*/true);
  app.add_flag("--decode", args.decode, "decode every image (default: headers and end markers)");
  app.add_option("--dump-out", args.dump_out,
                 "write every sample's post-pipeline tensors (the config's pipelines) to this "
                 ".pt file");
  if (const auto status = olv2::parse_command_line(app, "check_data", argc, argv)) return *status;
  return olv2::guarded_main("check_data", [&] { return run(args); });
}

}  // namespace olv2::programs::check_data
