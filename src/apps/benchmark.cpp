// benchmark: frames per second of a config's model with a checkpoint, as mmdet's benchmark.py
// measures them.
#include <CLI/CLI.hpp>

#include "cli/command_line.h"
#include "olv2/engine/inference_benchmark.h"
#include "olv2/util/allocator_tuning.h"
#include "olv2/util/app_main.h"

namespace olv2::programs::benchmark {

namespace {

constexpr int64_t kDefaultFrames = 100;

}  // namespace

int main(int argc, char** argv) {
  olv2::install_memory_reusing_allocators();
  olv2::InferenceBenchmarkOptions options;
  olv2::InferenceOptions& inference = options.inference;
  CLI::App app{"Measure how many frames per second a config's model predicts with a checkpoint."};
  app.add_option("config", inference.config_path, "YAML config file")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("checkpoint", inference.checkpoint,
                 "checkpoint: train_ds's, the original trainer's, or a plain state dict")
      ->required();
  app.add_option("--split", inference.split, "the `data` section whose frames run (default val)")
      ->check(CLI::IsMember({"val", "test"}));
  app.add_option("--warmup", options.warmup,
                 "frames predicted before the timing starts (default 5)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--use-fp16", inference.use_fp16,
               "predict under autocast: fp16 on CUDA, bf16 on CPU");
  app.add_option("--out", options.out, "write the figures as JSON to this file too");
  olv2::add_launch_options(app, inference.launch, inference.cfg_options);
  app.get_option("--max-frames")->description("frames predicted, warm-up included (default 100)");
  app.remove_option(app.get_option("--launcher"));
  app.remove_option(app.get_option("--local-rank"));
  if (const auto status = olv2::parse_command_line(app, "benchmark", argc, argv)) return *status;
  if (!inference.launch.max_frames) inference.launch.max_frames = kDefaultFrames;
  return olv2::guarded_main("benchmark", [&] {
    olv2::require_thread_count(inference.launch.threads);
    return olv2::run_inference_benchmark(options);
  });
}

}  // namespace olv2::programs::benchmark
