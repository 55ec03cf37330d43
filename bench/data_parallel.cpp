// Time and per-rank memory of a data-parallel training step over two local ranks (Gloo on
// loopback), by gradient sync: DDP-style bucket all-reduce after the backward, the same
// overlapped with the backward, and ZeRO stages 1 and 2 (overlapped). Each rank trains a
// config's model on its own synthetic frame; a step is forward, losses, backward, the optimizer
// step (sync, clip, AdamW) and zero_grad. Reported per sync (rank 0, medians over the timed
// steps): the step, its wait for communication after the backward, the optimizer step, and the
// bytes rank 0 holds of optimizer state and of gradients at the step. Prints a table and a JSON
// line. The ranks are this program started again with --rank.
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli/command_line.h"
#include "matmul_rate.h"
#include "olv2/config/config_loader.h"
#include "olv2/data/data_loader.h"
#include "olv2/data/dataset.h"
#include "olv2/data/synthetic/synthetic_dataset.h"
#include "olv2/engine/distributed/all_reduce_gradient_sync.h"
#include "olv2/engine/distributed/process_group.h"
#include "olv2/engine/distributed/zero_optimizer.h"
#include "olv2/engine/optimizer/replicated_optimizer.h"
#include "olv2/models/build.h"
#include "olv2/solver/adam.h"
#include "olv2/solver/grad_clip.h"
#include "olv2/util/app_main.h"
#include "olv2/util/error.h"
#include "olv2/util/platform.h"

namespace olv2::programs::bench_data_parallel {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;
using olv2::bench::median_of;

const std::vector<std::string> kSyncs = {"all-reduce after backward", "all-reduce overlapped",
                                         "ZeRO stage 1", "ZeRO stage 2"};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int64_t bytes_of(const at::Tensor& tensor) {
  return tensor.defined() ? tensor.numel() * static_cast<int64_t>(tensor.element_size()) : 0;
}

// Rank `rank`'s frame of the synthetic set as a batch of one.
olv2::Batch rank_batch(const olv2::ConfigNode& config, const fs::path& root, int64_t rank) {
  olv2::OpenLaneV2Dataset dataset(
      olv2::FrameIndex(root, root / "data_dict_synthetic.json", "train"),
      olv2::build_pipeline(config.at("data").at("train").at("pipeline")), olv2::DatasetOptions{});
  olv2::SamplerOptions sampler_options;
  sampler_options.dataset_size = static_cast<int64_t>(dataset.size());
  sampler_options.rank = rank;
  sampler_options.world_size = 2;
  olv2::DataLoaderOptions options;
  options.samples_per_gpu = 1;
  options.workers_per_gpu = 0;
  olv2::DataLoader loader(
      dataset, std::make_shared<olv2::DistributedGroupSampler>(sampler_options, 1), options);
  loader.start_epoch(0);
  return *loader.next();
}

// One sync's timed steps on this rank.
nlohmann::json time_sync(const std::string& sync_name, const olv2::ConfigNode& config,
                         const olv2::Batch& batch, olv2::Collective& collective, int steps,
                         double bucket_cap_mb) {
  torch::manual_seed(0);
  const std::shared_ptr<olv2::DetectorImpl> model = olv2::build_detector(config.at("model"));
  model->train();
  olv2::ParamGroup group;
  group.lr = 1e-4;
  group.weight_decay = 1e-4;
  for (const auto& item : model->named_parameters()) {
    if (!item.value().requires_grad()) continue;
    group.names.push_back(item.key());
    group.params.push_back(item.value());
  }
  const auto adam = std::make_shared<olv2::AdamOptions>();
  olv2::TrainableParams trainable{group.names, group.params};
  std::unique_ptr<olv2::TrainingOptimizer> optimizer;
  olv2::ZeroOptimizer* zero = nullptr;
  if (sync_name.rfind("ZeRO stage ", 0) == 0) {
    auto sharded = std::make_unique<olv2::ZeroOptimizer>(
        trainable, nullptr, sync_name.back() - '0', collective, group.params,
        std::vector<int64_t>(group.params.size(), 0), std::vector<olv2::ParamGroup>{group}, adam,
        bucket_cap_mb, true);
    zero = sharded.get();
    optimizer = std::move(sharded);
  } else {
    optimizer = std::make_unique<olv2::ReplicatedOptimizer>(
        trainable, adam, std::vector<olv2::ParamGroup>{group},
        std::make_unique<olv2::AllReduceGradientSync>(collective, group.params, bucket_cap_mb,
                                                      sync_name == "all-reduce overlapped"),
        nullptr, collective.rank());
  }
  olv2::GradClipOptions clip;
  clip.max_norm = 35.0;
  std::vector<double> step_s, wait_s, optimizer_s;
  int64_t gradient_bytes = 0;
  for (int i = 0; i <= steps; ++i) {  // the first is a warm-up
    collective.barrier();
    const auto start = Clock::now();
    optimizer->backward(olv2::total_loss(model->forward_train(batch)), true);
    const auto synced = Clock::now();
    // The wait: the synchronisation after the backward (what the overlap hides).
    const olv2::SyncedGradients& held = optimizer->synchronize();
    const double waited = seconds_since(synced);
    gradient_bytes = 0;
    for (const at::Tensor& holder : held.holders) gradient_bytes += bytes_of(holder.grad());
    // The rest of the step without a loss scaler: clip, update.
    const auto update = Clock::now();
    optimizer->step(clip, i + 1);
    const double updated = seconds_since(update);
    optimizer->zero_grad();
    if (i == 0) continue;
    step_s.push_back(seconds_since(start));
    wait_s.push_back(waited);
    optimizer_s.push_back(updated);
  }
  int64_t state_bytes = 0;
  if (zero != nullptr) {
    state_bytes = zero->optimizer_state_bytes();
  } else if (const std::optional<olv2::PthValue> state = optimizer->state()) {  // rank 0 reports
    for (const auto& [index, entry] : state->at("state").dict_items()) {
      (void)index;
      state_bytes +=
          bytes_of(entry.at("exp_avg").as_tensor()) + bytes_of(entry.at("exp_avg_sq").as_tensor());
    }
  }
  int64_t param_bytes = 0;
  for (const at::Tensor& param : group.params) param_bytes += bytes_of(param);
  return {{"sync", sync_name},
          {"describe", optimizer->describe()},
          {"step_s", median_of(step_s)},
          {"wait_after_backward_s", median_of(wait_s)},
          {"optimizer_step_s", median_of(optimizer_s)},
          {"parameter_mib", static_cast<double>(param_bytes) / 1048576.0},
          {"optimizer_state_mib", static_cast<double>(state_bytes) / 1048576.0},
          {"gradient_mib", static_cast<double>(gradient_bytes) / 1048576.0}};
}

int run_rank(const std::string& config_file, const fs::path& root, int64_t rank, int port,
             int steps, double bucket_cap_mb) {
  olv2::ConfigNode config = olv2::load_config_file(config_file);
  olv2::apply_config_overrides(config, {"model.img_backbone.init_cfg=null"});
  olv2::LaunchEnvironment env;
  env.rank = rank;
  env.world_size = 2;
  env.local_rank = rank;
  env.local_world_size = 2;
  env.master_port = port;
  olv2::DistributedOptions options;
  options.timeout_s = 300;
  olv2::ProcessGroupCollective collective(env, options, c10::Device(c10::kCPU));
  const olv2::Batch batch = rank_batch(config, root, rank);
  nlohmann::json results = nlohmann::json::array();
  for (const std::string& sync : kSyncs)
    results.push_back(time_sync(sync, config, batch, collective, steps, bucket_cap_mb));
  if (rank == 0) std::printf("%s\n", results.dump().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Measure a two-rank training step by gradient sync: overlap and ZeRO."};
  std::string config_file;
  double image_scale = 0.125;
  int steps = 5;
  int threads = 1;
  double bucket_cap_mb = 25.0;
  int64_t rank = -1;
  int port = 0;
  std::string data_root;
  app.add_option("config", config_file, "config whose model is trained, e.g. configs/demo.yaml")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--image-scale", image_scale, "scale of the generated frames (default 0.125)");
  app.add_option("--steps", steps, "timed steps per sync, after one warm-up (default 5)");
  app.add_option("--threads", threads, "intra-op threads per rank (default 1)");
  app.add_option("--bucket-cap-mb", bucket_cap_mb,
                 "gradient bucket size (dist_params.bucket_cap_mb; default 25)");
  app.add_option("--rank", rank, "run as this rank (internal)");
  app.add_option("--port", port, "with --rank: the rendezvous port (internal)");
  app.add_option("--data-root", data_root, "with --rank: the frames (internal)");
  if (const auto status = olv2::parse_command_line(app, "bench_data_parallel", argc, argv))
    return *status;
  return olv2::guarded_main("bench_data_parallel", [&] {
    at::set_num_threads(threads);
    if (rank >= 0) return run_rank(config_file, data_root, rank, port, steps, bucket_cap_mb);
    const fs::path root =
        fs::temp_directory_path() /
        ("olv2_bench_data_parallel_" + std::to_string(olv2::platform::process_id()));
    fs::remove_all(root);
    olv2::synthetic::SyntheticDataOptions options;
    options.out = root;
    options.frames = 2;
    options.val_frames = 0;
    options.image_scale = image_scale;
    olv2::synthetic::make_synthetic_data(options);
    const int rendezvous = 29000 + static_cast<int>(olv2::platform::process_id() % 2000);
    std::vector<std::string> outputs(2);
    std::vector<int> statuses(2, 0);
    std::vector<std::thread> ranks;
    for (int64_t r = 0; r < 2; ++r) {
      const std::string command = "\"" + olv2::platform::executable_path().string() + "\" \"" +
                                  config_file + "\" --data-root \"" + root.string() + "\" --rank " +
                                  std::to_string(r) + " --port " + std::to_string(rendezvous) +
                                  " --steps " + std::to_string(steps) + " --threads " +
                                  std::to_string(threads);
      ranks.emplace_back([&, r, command] {
        outputs[r] = olv2::platform::run_capturing_stdout(command, statuses[r]);
      });
    }
    for (std::thread& thread : ranks) thread.join();
    fs::remove_all(root);
    const auto line_start = outputs[0].rfind('[');
    if (statuses[0] != 0 || statuses[1] != 0 || line_start == std::string::npos) {
      throw olv2::runtime_error("a rank failed: " + outputs[0] + outputs[1]);
    }
    const nlohmann::json results = nlohmann::json::parse(outputs[0].substr(line_start));
    std::printf(
        "%s, 2 ranks x 1 frame (image scale %g), %d thread(s) per rank, buckets of %g MB, %d "
        "timed steps\n",
        config_file.c_str(), image_scale, threads, bucket_cap_mb, steps);
    std::printf("%-26s %8s %12s %12s %12s %12s %10s\n", "gradient sync", "step s", "wait s",
                "update s", "params MiB", "state MiB", "grads MiB");
    for (const nlohmann::json& result : results) {
      std::printf("%-26s %8.3f %12.4f %12.4f %12.1f %12.1f %10.1f\n",
                  result["sync"].get<std::string>().c_str(), result["step_s"].get<double>(),
                  result["wait_after_backward_s"].get<double>(),
                  result["optimizer_step_s"].get<double>(), result["parameter_mib"].get<double>(),
                  result["optimizer_state_mib"].get<double>(),
                  result["gradient_mib"].get<double>());
    }
    std::printf("%s\n", nlohmann::json{{"bench", "data_parallel"},
                                       {"config", config_file},
                                       {"image_scale", image_scale},
                                       {"threads_per_rank", threads},
                                       {"bucket_cap_mb", bucket_cap_mb},
                                       {"steps", steps},
                                       {"syncs", results}}
                            .dump()
                            .c_str());
    return 0;
  });
}

}  // namespace olv2::programs::bench_data_parallel
