// Walks an OpenLane-V2 dataset the way training reads it and reports what it finds.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <set>

#include "cli/command_line.h"
#include "olv2/config/config_loader.h"
#include "olv2/data/dataset.h"
#include "olv2/data/dataset_check.h"
#include "olv2/data/frame_reader.h"
#include "olv2/data/pipeline.h"
#include "olv2/data/sample_dump.h"
#include "olv2/util/allocator_tuning.h"
#include "olv2/util/app_main.h"
#include "olv2/util/error.h"
#include "olv2/util/pth/pth_file.h"

namespace {

struct Arguments {
  std::string data_root;
  std::string collection;
  std::string split;
  bool decode = false;
  std::string config = "configs/baseline.yaml";
  std::string dump;
};

// The pipeline --dump runs for `split`: the train pipeline without the (random) photometric
// distortion for train, the split's own (test) pipeline otherwise.
olv2::Pipeline dump_pipeline(const olv2::ConfigNode& config, const std::string& split) {
  const olv2::ConfigNode& data = config.at("data");
  if (split == "train") {
    return olv2::build_pipeline(data.at("train").at("pipeline"),
                                {"PhotoMetricDistortionMultiViewImage"});
  }
  const olv2::ConfigNode* own = data.find(split);
  const olv2::ConfigNode& dataset = own != nullptr ? *own : data.at("val");
  return olv2::build_pipeline(dataset.at("pipeline"));
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

int run(const Arguments& args) {
  std::vector<std::string> splits = {args.split};
  if (args.split.empty()) splits = olv2::read_collection_splits(args.collection);
  olv2::ConfigNode config;
  if (!args.dump.empty()) config = olv2::load_config_file(args.config);

  olv2::DatasetCheckOptions options;
  options.decode = args.decode;
  int64_t problems = 0;
  olv2::PthDictItems dumped;
  for (const std::string& split : splits) {
    const olv2::FrameIndex index(args.data_root, args.collection, split);
    olv2::DatasetCheckReport report = olv2::check_dataset(index, options);
    if (!args.dump.empty()) dump_split(index, dump_pipeline(config, split), report, dumped);
    std::printf("%s\n", olv2::format_check_report(report).c_str());
    problems += report.problem_count();
  }
  if (!args.dump.empty()) {
    olv2::write_pth(args.dump, olv2::PthValue::dict(std::move(dumped)));
    std::printf("wrote %s\n", args.dump.c_str());
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
      "Checks an OpenLane-V2 dataset: reads every frame and image the way training does "
      "and prints a summary. Exit status: 0 clean, 1 problems found, 2 bad invocation."};
  app.add_option("--data-root", args.data_root, "Dataset root (holds <split>/<segment>/...)")
      ->required()
      ->check(CLI::ExistingDirectory);
  app.add_option("--collection", args.collection, "Collection JSON ({split: {segment: [...]}})")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--split", args.split, "Split to check (default: every split, in file order)");
  app.add_flag("--decode", args.decode, "Decode every image (default: headers and end markers)");
  app.add_option("--config", args.config, "Config whose pipelines --dump runs")
      ->capture_default_str()
      ->check(CLI::ExistingFile);
  app.add_option("--dump", args.dump,
                 "Write every sample's post-pipeline tensors to this .pt file");
  if (const auto status = olv2::parse_command_line(app, "check_data", argc, argv)) return *status;
  return olv2::guarded_main("check_data", [&] { return run(args); });
}
