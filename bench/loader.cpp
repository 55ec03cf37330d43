// Per-sample cost of the train pipeline at full resolution: JPEG decode against the rest, and
// loader throughput with 1 and 2 worker threads. Prints a table and a JSON line.
#include <ATen/Parallel.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <opencv2/imgcodecs.hpp>
#include <utility>

#include "cli/command_line.h"
#include "olv2/config/config_loader.h"
#include "olv2/data/data_loader.h"
#include "olv2/data/dataset.h"
#include "olv2/data/synthetic/synthetic_dataset.h"
#include "olv2/util/allocator_tuning.h"
#include "olv2/util/app_main.h"
#include "olv2/util/error.h"

namespace olv2::programs::bench_loader {

namespace fs = std::filesystem;

namespace {

// Wall-clock and CPU seconds; on a shared machine the CPU time is the steadier figure.
struct Cost {
  double wall = 0;
  double cpu = 0;
};

double cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

class Stopwatch {
 public:
  Cost per(int64_t count) const {
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
    return {wall / static_cast<double>(count),
            (cpu_seconds() - cpu_start_) / static_cast<double>(count)};
  }

 private:
  std::chrono::steady_clock::time_point wall_start_ = std::chrono::steady_clock::now();
  double cpu_start_ = cpu_seconds();
};

// Cost per frame to decode its camera JPEGs as the load transform does.
Cost decode_cost(const olv2::OpenLaneV2Dataset& dataset, int repeats) {
  const Stopwatch watch;
  int64_t frames = 0;
  for (int r = 0; r < repeats; ++r) {
    for (size_t i = 0; i < dataset.size(); ++i, ++frames) {
      const olv2::Frame frame = dataset.index().load(i);
      for (const auto& camera : frame.cameras) {
        const cv::Mat image = cv::imread((dataset.index().data_root() / camera.image_path).string(),
                                         cv::IMREAD_UNCHANGED);
        if (image.empty()) {
          throw olv2::runtime_error("cannot decode " + camera.image_path);
        }
      }
    }
  }
  return watch.per(frames);
}

// Cost per frame of the whole pipeline in this thread.
Cost pipeline_cost(const olv2::OpenLaneV2Dataset& dataset, int repeats) {
  const Stopwatch watch;
  int64_t frames = 0;
  for (int r = 0; r < repeats; ++r) {
    for (size_t i = 0; i < dataset.size(); ++i, ++frames) {
      dataset.get(i, r);
    }
  }
  return watch.per(frames);
}

// Cost per sample through the loader (pipeline + collate) with `workers` threads.
Cost loader_cost(const olv2::OpenLaneV2Dataset& dataset, int64_t workers, int repeats) {
  olv2::SamplerOptions sampler_options;
  sampler_options.dataset_size = static_cast<int64_t>(dataset.size());
  auto sampler = std::make_shared<olv2::DistributedGroupSampler>(sampler_options, 2);
  olv2::DataLoaderOptions options;
  options.samples_per_gpu = 2;
  options.workers_per_gpu = workers;
  olv2::DataLoader loader(dataset, sampler, options);
  const Stopwatch watch;
  int64_t samples = 0;
  for (int r = 0; r < repeats; ++r) {
    loader.start_epoch(r);
    while (auto batch = loader.next()) {
      samples += batch->size();
    }
  }
  return watch.per(samples);
}

}  // namespace

int main(int argc, char** argv) {
  olv2::install_memory_reusing_allocators();  // as train_ds
  CLI::App app{
      "Measure the train pipeline's cost per sample at full resolution (decode vs the rest)."};
  std::string data_root;
  std::string config_file;
  int64_t frames = 4;
  int repeats = 2;
  app.add_option("config", config_file,
                 "config whose data.train.pipeline is timed, e.g. configs/baseline.yaml")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--data-root", data_root,
                 "dataset with data_dict_synthetic.json (default: full-size frames generated)");
  app.add_option("--frames", frames, "frames generated without --data-root (default 4)");
  app.add_option("--repeats", repeats, "passes over the frames per measurement (default 2)");
  if (const auto status = olv2::parse_command_line(app, "bench_loader", argc, argv)) return *status;
  return olv2::guarded_main("bench_loader", [&] {
    at::set_num_threads(1);
    fs::path root = data_root;
    if (root.empty()) {
      root = fs::temp_directory_path() / "olv2_bench_loader";
      fs::remove_all(root);
      olv2::synthetic::SyntheticDataOptions options;
      options.out = root;
      options.frames = frames;
      options.val_frames = 0;
      options.image_scale = 1.0;
      olv2::synthetic::make_synthetic_data(options);
    }
    const olv2::ConfigNode config = olv2::load_config_file(config_file);
    const olv2::OpenLaneV2Dataset dataset(
        olv2::FrameIndex(root, root / "data_dict_synthetic.json", "train"),
        olv2::build_pipeline(config.at("data").at("train").at("pipeline")), olv2::DatasetOptions{});

    pipeline_cost(dataset, 1);  // warm-up: page cache, allocator
    const Cost decode = decode_cost(dataset, repeats);
    const Cost pipeline = pipeline_cost(dataset, repeats);
    const Cost one_worker = loader_cost(dataset, 1, repeats);
    const Cost two_workers = loader_cost(dataset, 2, repeats);
    const Cost rest{pipeline.wall - decode.wall, pipeline.cpu - decode.cpu};

    std::printf("train pipeline, %zu frames of 7 full-size JPEGs, %d passes\n", dataset.size(),
                repeats);
    std::printf("%-34s %12s %12s\n", "measure", "wall s/smp", "cpu s/smp");
    const std::pair<const char*, Cost> rows[] = {
        {"decode (7 JPEGs)", decode},
        {"rest of the pipeline", rest},
        {"whole pipeline, calling thread", pipeline},
        {"loader + collate, 1 worker", one_worker},
        {"loader + collate, 2 workers", two_workers},
    };
    for (const auto& [name, cost] : rows) {
      std::printf("%-34s %12.4f %12.4f\n", name, cost.wall, cost.cpu);
    }
    std::printf("%-34s %12.2f\n", "speed-up 2 workers vs 1 (wall)",
                one_worker.wall / two_workers.wall);
    std::printf(
        "{\"bench\": \"loader\", \"frames\": %zu, \"repeats\": %d, \"decode_s\": %.5f, "
        "\"rest_s\": %.5f, \"pipeline_s\": %.5f, \"pipeline_cpu_s\": %.5f, "
        "\"decode_cpu_s\": %.5f, \"loader_1_worker_s\": %.5f, \"loader_2_workers_s\": %.5f, "
        "\"speedup_2_vs_1\": %.3f}\n",
        dataset.size(), repeats, decode.wall, rest.wall, pipeline.wall, pipeline.cpu, decode.cpu,
        one_worker.wall, two_workers.wall, one_worker.wall / two_workers.wall);
    return 0;
  });
}

}  // namespace olv2::programs::bench_loader
