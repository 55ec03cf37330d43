// Soak: a long training run of the tiny config (configs/tests/tiny.yaml: every part of training,
// validation included) on synthetic frames, in this process, with a probe that records the
// resident memory, open descriptors and threads after given optimizer steps. What grows between
// the early and the final sample is a leak. Prints a table and one JSON line.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "olv2/data/synthetic/synthetic_dataset.h"
#include "olv2/engine/hooks/hook.h"
#include "olv2/engine/train_command.h"
#include "olv2/engine/train_context.h"
#include "olv2/util/allocator_tuning.h"
#include "olv2/util/app_main.h"
#include "olv2/util/error.h"
#include "olv2/util/platform.h"

namespace olv2::programs::bench_soak {

namespace {

namespace fs = std::filesystem;

constexpr int64_t kTrainFrames = 4;  // with samples_per_gpu 1: 4 optimizer steps per epoch

struct Sample {
  int64_t step = 0;
  double rss_mib = 0.0;
  int64_t descriptors = 0;
  int64_t threads = 0;
};

// Records the process's resources at the end of the epochs that end at the given optimizer
// steps, after that epoch's validation and checkpoint (observers run after the run's hooks), so
// that pools made once by the first validation count in both samples.
class ResourceProbe : public olv2::Hook {
 public:
  ResourceProbe(std::vector<int64_t> steps, std::vector<Sample>& samples)
      : steps_(std::move(steps)), samples_(samples) {}

  void after_epoch(olv2::TrainContext& context) override {
    for (int64_t step : steps_) {
      if (context.iteration != step) continue;
      samples_.push_back({step,
                          static_cast<double>(olv2::platform::current_resident_bytes()) / 1048576.0,
                          olv2::platform::open_descriptor_count(), olv2::platform::thread_count()});
    }
  }

 private:
  std::vector<int64_t> steps_;
  std::vector<Sample>& samples_;
};

struct Arguments {
  int64_t steps = 1000;
  int64_t validate_every = 100;
  int64_t early_step = 100;
  fs::path work_dir;
  int threads = 1;
};

int run(const Arguments& args) {
  if (args.steps % kTrainFrames != 0 || args.validate_every % kTrainFrames != 0) {
    throw olv2::input_error("--steps and --validate-every: expected multiples of " +
                            std::to_string(kTrainFrames) + " (optimizer steps per epoch)");
  }
  if (args.early_step <= 0 || args.early_step >= args.steps || args.early_step % kTrainFrames) {
    throw olv2::input_error("--early-step: expected a multiple of " + std::to_string(kTrainFrames) +
                            " in (0, --steps)");
  }
  const fs::path work_dir =
      args.work_dir.empty()
          ? fs::temp_directory_path() /
                ("olv2_bench_soak_" + std::to_string(olv2::platform::process_id()))
          : args.work_dir;
  fs::remove_all(work_dir);
  olv2::synthetic::SyntheticDataOptions data;
  data.out = work_dir / "data";
  data.frames = kTrainFrames + 2;
  data.val_frames = 2;
  data.image_scale = 0.0625;
  data.seed = 3;
  olv2::synthetic::make_synthetic_data(data);

  olv2::TrainOptions options;
  options.config_path = "configs/tests/tiny.yaml";
  options.work_dir = (work_dir / "run").string();
  options.launch.threads = args.threads;
  const int64_t epochs_per_validation = args.validate_every / kTrainFrames;
  options.cfg_options = {"data_root=" + data.out.string(),
                         "meta_root=" + data.out.string(),
                         "runner.max_epochs=" + std::to_string(args.steps / kTrainFrames),
                         "evaluation.interval=" + std::to_string(epochs_per_validation),
                         "evaluation.visualize=1",
                         "checkpoint_config.interval=" + std::to_string(epochs_per_validation),
                         "checkpoint_config.max_keep_ckpts=1",
                         "log_config.interval=" + std::to_string(kTrainFrames * 5)};
  std::vector<Sample> samples;
  std::vector<std::unique_ptr<olv2::Hook>> observers;
  observers.push_back(
      std::make_unique<ResourceProbe>(std::vector<int64_t>{args.early_step, args.steps}, samples));
  const int status = olv2::run_train_command(options, std::move(observers));
  if (status != 0 || samples.size() != 2) {
    throw olv2::runtime_error("the soak run did not finish (status " + std::to_string(status) +
                              ")");
  }

  const Sample& early = samples[0];
  const Sample& late = samples[1];
  const double rss_growth = late.rss_mib / early.rss_mib - 1.0;
  std::printf("\n%-6s %10s %12s %8s\n", "step", "rss_mib", "descriptors", "threads");
  for (const Sample& s : samples) {
    std::printf("%-6lld %10.1f %12lld %8lld\n", static_cast<long long>(s.step), s.rss_mib,
                static_cast<long long>(s.descriptors), static_cast<long long>(s.threads));
  }
  std::printf("RSS growth %+.2f %%, descriptors %+lld, threads %+lld\n", 100.0 * rss_growth,
              static_cast<long long>(late.descriptors - early.descriptors),
              static_cast<long long>(late.threads - early.threads));
  nlohmann::ordered_json json;
  json["bench"] = "soak";
  json["steps"] = args.steps;
  json["validate_every"] = args.validate_every;
  json["threads"] = args.threads;
  for (const Sample& s : samples) {
    json["samples"].push_back({{"step", s.step},
                               {"rss_mib", s.rss_mib},
                               {"descriptors", s.descriptors},
                               {"threads", s.threads}});
  }
  json["rss_growth"] = rss_growth;
  json["descriptor_growth"] = late.descriptors - early.descriptors;
  json["thread_growth"] = late.threads - early.threads;
  std::printf("%s\n", json.dump().c_str());
  if (args.work_dir.empty()) fs::remove_all(work_dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  olv2::install_memory_reusing_allocators();  // as train_ds
  CLI::App app{
      "Soak: watch resident memory, descriptors and threads over a long tiny training run."};
  Arguments args;
  app.add_option("--steps", args.steps, "optimizer steps (a multiple of 4; default 1000)")
      ->check(CLI::PositiveNumber);
  app.add_option("--validate-every", args.validate_every,
                 "optimizer steps between validations (a multiple of 4; default 100)")
      ->check(CLI::PositiveNumber);
  app.add_option("--early-step", args.early_step,
                 "the step of the first sample (a multiple of 4; default 100)");
  app.add_option("--work-dir", args.work_dir,
                 "keep the data and the run here (default: a "
                 "temporary folder, removed)");
  app.add_option("--threads", args.threads, "intra-op threads (default 1)")
      ->check(CLI::PositiveNumber);
  if (const auto status = olv2::parse_command_line(app, "bench_soak", argc, argv)) return *status;
  return olv2::guarded_main("bench_soak", [&] { return run(args); });
}

}  // namespace olv2::programs::bench_soak
