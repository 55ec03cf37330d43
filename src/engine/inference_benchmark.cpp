#include "olv2/engine/inference_benchmark.h"

#include <ATen/Parallel.h>
#include <torch/cuda.h>
#include <torch/types.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "olv2/data/data_loader.h"
#include "olv2/data/dataset_builder.h"
#include "olv2/data/sampler.h"
#include "olv2/engine/distributed/launched_process.h"
#include "olv2/engine/inference_command.h"
#include "olv2/engine/precision/precision.h"
#include "olv2/engine/settings/engine_options.h"
#include "olv2/models/build.h"
#include "olv2/util/autocast_guard.h"
#include "olv2/util/elapsed.h"
#include "olv2/util/environment.h"
#include "olv2/util/error.h"
#include "olv2/util/filesystem.h"
#include "olv2/util/logging.h"
#include "olv2/util/peak_memory.h"

namespace olv2 {

namespace {

using Clock = std::chrono::steady_clock;

// What the device has queued is done: the clock then measures the work, not its launch.
void synchronize(const c10::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

struct FrameTimes {
  std::vector<double> model;  // seconds per timed frame: forward and decoding
  double model_total = 0.0;   // their sum
  double data = 0.0;          // seconds waited for the loader over the timed frames
  double wall = 0.0;          // seconds from the first timed frame's request to the last's end
};

FrameTimes time_frames(DetectorImpl& model, const OpenLaneV2Dataset& dataset,
                       const c10::Device& device, const EngineOptions& engine,
                       const std::optional<AutocastState>& autocast, int64_t warmup) {
  DataLoaderOptions loader_options;
  loader_options.samples_per_gpu = 1;
  loader_options.workers_per_gpu = engine.workers_per_gpu;
  if (device.is_cuda()) loader_options.pin_for = device;
  SamplerOptions sampler_options;
  sampler_options.dataset_size = static_cast<int64_t>(dataset.size());
  DataLoader loader(dataset, std::make_shared<DistributedSampler>(sampler_options, false),
                    loader_options);
  loader.start_epoch(0);
  model.eval();
  torch::NoGradGuard no_grad;
  std::optional<AutocastGuard> autocast_guard;
  if (autocast) autocast_guard.emplace(device.type(), *autocast);

  FrameTimes times;
  const auto total = static_cast<int64_t>(dataset.size());
  const int64_t report_every = std::max<int64_t>(1, (total - warmup) / 5);
  Clock::time_point timed_start;
  for (int64_t frame = 0; frame < total; ++frame) {
    if (frame == warmup) timed_start = Clock::now();
    const auto requested = Clock::now();
    std::optional<Batch> batch = loader.next();
    if (!batch) break;
    const auto loaded = Clock::now();
    const Batch on_device = batch->to(device, device.is_cuda());
    model.predict(on_device);
    synchronize(device);
    if (frame < warmup) continue;
    times.data += std::chrono::duration<double>(loaded - requested).count();
    times.model.push_back(seconds_since(loaded));
    times.model_total += times.model.back();
    const auto timed = static_cast<int64_t>(times.model.size());
    if (timed % report_every == 0) {
      spdlog::info("frame [{}/{}], {:.2f} frames/s", timed, total - warmup,
                   static_cast<double>(timed) / times.model_total);
    }
  }
  times.wall = seconds_since(timed_start);
  return times;
}

}  // namespace

int run_inference_benchmark(const InferenceBenchmarkOptions& options) {
  const InferenceOptions& inference = options.inference;
  if (options.warmup < 0) {
    throw input_error("--warmup " + std::to_string(options.warmup) + ": expected 0 or more");
  }
  require_checkpoint_file(inference.checkpoint);
  const ConfigNode config = resolve_inference_config(inference);
  const EngineOptions engine = engine_options_from_config(config);
  const LaunchedProcess process = start_launched_process(inference.launch, engine);
  const c10::Device device = process.device;
  setup_logging(std::filesystem::path(), true);
  spdlog::info("{}", environment_report("benchmark", inference.config_path, device,
                                        {{"checkpoint", inference.checkpoint}}));
  const std::shared_ptr<const DetectorOptions> model_options =
      detector_options_from_config(config.at("model"));
  const std::shared_ptr<DetectorImpl> model =
      model_from_checkpoint(*model_options, inference.checkpoint, device);
  const std::unique_ptr<OpenLaneV2Dataset> dataset =
      build_dataset(DatasetSpec::from_config(config, inference.split), /*seed=*/0);
  if (static_cast<int64_t>(dataset->size()) <= options.warmup) {
    throw input_error("data." + inference.split + " has " + std::to_string(dataset->size()) +
                      " frames: the benchmark needs more than --warmup " +
                      std::to_string(options.warmup));
  }
  std::optional<AutocastState> autocast;
  if (inference.use_fp16) {
    PrecisionSettings fp16;
    fp16.fp16 = true;
    autocast = resolve_precision(fp16, device).autocast;
  }
  spdlog::info("predicting {} frames of data.{} ({} warm-up) on {}{}", dataset->size(),
               inference.split, options.warmup, device.str(),
               autocast ? std::string(" under ") + c10::toString(autocast->dtype) + " autocast"
                        : std::string());
  const FrameTimes times = time_frames(*model, *dataset, device, engine, autocast, options.warmup);

  std::vector<double> sorted = times.model;
  std::sort(sorted.begin(), sorted.end());
  const auto frames = static_cast<double>(times.model.size());
  nlohmann::ordered_json result;
  result["benchmark"] = "inference";
  result["config"] = inference.config_path;
  result["checkpoint"] = inference.checkpoint;
  result["split"] = inference.split;
  result["device"] = device.str();
  result["precision"] = autocast ? c10::toString(autocast->dtype) : "float32";
  result["threads"] = at::get_num_threads();
  result["warmup_frames"] = options.warmup;
  result["frames"] = times.model.size();
  result["model_fps"] = frames / times.model_total;
  result["overall_fps"] = frames / times.wall;
  result["median_model_ms"] = 1000.0 * sorted[sorted.size() / 2];
  result["data_wait_ms_per_frame"] = 1000.0 * times.data / frames;
  result["peak_memory_mb"] = peak_memory_mb(device);
  spdlog::info(
      "model: {:.2f} frames/s (median {:.1f} ms a frame); with the loader: {:.2f} frames/s",
      result["model_fps"].get<double>(), result["median_model_ms"].get<double>(),
      result["overall_fps"].get<double>());
  std::printf("%s\n", result.dump().c_str());
  if (!options.out.empty()) write_file_atomic(options.out, result.dump(2) + "\n");
  install_process_collective(nullptr);
  return 0;
}

}  // namespace olv2
