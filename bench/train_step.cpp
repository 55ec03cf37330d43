// Time and peak memory of one training step (forward, losses, backward) of a config's model on
// synthetic frames, by precision (fp32, bf16 autocast) and activation checkpointing. Baseline:
// off; ResNet `with_cp` (each residual block recomputed); `with_cp` plus
// `model.checkpoint: [extract_feat, img_view_transformer]`. BaselineLarge: off;
// `model.checkpoint: [extract_feat, bev_constructor]`.
// Each case runs in its own process, so its peak RSS is its own. Each also reports the step's
// model FLOPs and the rate achieved as a share of a matrix product's rate in the same dtype on
// the same threads (forward_flops.h, matmul_rate.h). Prints a table and a JSON line.
//
// With --input FIXTURE.pt --state-dict S.pt: the original benchmark's procedure instead
// (`bench_original.py`, for side-by-side runs): that sample (resized by --scale as the
// original does) and those weights, `--warmup` untimed and `--steps` timed steps of
// forward_train + loss sum + backward + AdamW(lr 1e-4, weight decay 1e-4) step + zero_grad, or
// of forward_test under no_grad (--mode eval), in fp32 or under bf16 autocast (--precision); the
// median step with its split into the original's stages (backbone, neck, view transformer, heads +
// losses, backward, optimizer) and the peak RSS, as one JSON line.
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "forward_flops.h"
#include "matmul_rate.h"
#include "olv2/config/config_loader.h"
#include "olv2/data/data_loader.h"
#include "olv2/data/dataset.h"
#include "olv2/data/fixture_sample.h"
#include "olv2/data/synthetic/synthetic_dataset.h"
#include "olv2/models/build.h"
#include "olv2/util/allocator_tuning.h"
#include "olv2/util/app_main.h"
#include "olv2/util/autocast_guard.h"
#include "olv2/util/error.h"
#include "olv2/util/large_block_allocator.h"
#include "olv2/util/platform.h"
#include "olv2/util/pth/pth_file.h"
#include "olv2/util/state_dict.h"
#include "op_profile.h"
#include "stage_times.h"

namespace olv2::programs::bench_train_step {

namespace fs = std::filesystem;

namespace {

using olv2::bench::median_of;

struct Case {
  std::string precision;      // fp32 or bf16
  std::string checkpointing;  // one of kCheckpointings
};

const std::array<std::string, 2> kPrecisions = {"fp32", "bf16"};
// The checkpointing cases of a model type.
std::vector<std::string> checkpointings_of(const std::string& model_type) {
  if (model_type == "BaselineLarge") return {"off", "model"};
  return {"off", "with_cp", "with_cp+model"};
}

// The config overrides of one checkpointing case.
std::vector<std::string> checkpointing_overrides(const std::string& model_type,
                                                 const std::string& checkpointing) {
  if (model_type == "BaselineLarge") {
    return {checkpointing == "model" ? "model.checkpoint=[extract_feat, bev_constructor]"
                                     : "model.checkpoint=[]"};
  }
  return {std::string("model.img_backbone.with_cp=") + (checkpointing == "off" ? "false" : "true"),
          checkpointing == "with_cp+model" ? "model.checkpoint=[extract_feat, img_view_transformer]"
                                           : "model.checkpoint=[]"};
}

double resident_mib() {
  return static_cast<double>(olv2::platform::current_resident_bytes()) / 1048576.0;
}

double peak_resident_mib() {
  return static_cast<double>(olv2::platform::peak_resident_bytes()) / 1048576.0;
}

// What the large-block cache held at most and how often it reused a block.
nlohmann::json large_block_summary() {
  const olv2::BlockCache::Stats stats = olv2::large_block_stats();
  return {{"installed", olv2::large_block_allocator_installed()},
          {"peak_mapped_mib", static_cast<double>(stats.peak_mapped_bytes) / (1 << 20)},
          {"reused", stats.reused},
          {"assembled", stats.assembled},
          {"mapped", stats.mapped}};
}

// The step's model FLOPs (3 x the forward's when training, the forward's when predicting; see
// forward_flops.h) and the rate the step achieved, as a share of a 1024 x 1024 matrix
// product's rate in the same dtype on the same threads (bench_tflops' measure).
nlohmann::json flops_summary(olv2::DetectorImpl& model, const olv2::Batch& batch, bool train,
                             const std::string& precision, double step_s) {
  double forward_flops = 0.0;
  {
    torch::NoGradGuard no_grad;
    std::optional<olv2::AutocastGuard> autocast;
    if (precision == "bf16") autocast.emplace(c10::kCPU, olv2::AutocastState{true});
    const olv2::bench::ForwardFlopCounter counter;
    if (train) {
      model.forward_train(batch);
    } else {
      model.predict(batch);
    }
    forward_flops = counter.flops();
  }
  const double model_flops = (train ? 3.0 : 1.0) * forward_flops;
  const olv2::bench::MatmulRate peak = olv2::bench::matmul_rate(
      precision == "bf16" ? torch::kBFloat16 : torch::kFloat, 1024, 5, c10::Device(c10::kCPU));
  const double achieved = model_flops / step_s;
  return {{"model_gflop", model_flops / 1e9},
          {"achieved_gflop_per_s", achieved / 1e9},
          {"matmul_peak_gflop_per_s", peak.flops_per_s / 1e9},
          {"share_of_matmul_peak", peak.flops_per_s > 0.0 ? achieved / peak.flops_per_s : 0.0}};
}

olv2::Batch first_batch(const olv2::ConfigNode& config, const fs::path& root, int64_t samples) {
  static std::unique_ptr<olv2::OpenLaneV2Dataset> dataset;
  dataset = std::make_unique<olv2::OpenLaneV2Dataset>(
      olv2::FrameIndex(root, root / "data_dict_synthetic.json", "train"),
      olv2::build_pipeline(config.at("data").at("train").at("pipeline")), olv2::DatasetOptions{});
  olv2::SamplerOptions sampler_options;
  sampler_options.dataset_size = static_cast<int64_t>(dataset->size());
  olv2::DataLoaderOptions options;
  options.samples_per_gpu = samples;
  options.workers_per_gpu = 0;
  olv2::DataLoader loader(
      *dataset, std::make_shared<olv2::DistributedGroupSampler>(sampler_options, samples), options);
  loader.start_epoch(0);
  auto batch = loader.next();
  if (!batch) throw olv2::runtime_error("no batch from " + root.string());
  return std::move(*batch);
}

// Runs one case in this process and prints its JSON.
int run_case(const std::string& config_file, const fs::path& root, const Case& c, int64_t samples,
             int steps) {
  olv2::ConfigNode config = olv2::load_config_file(config_file);
  std::vector<std::string> overrides = {"model.img_backbone.init_cfg=null"};
  for (const std::string& o :
       checkpointing_overrides(config.at("model").at("type").as_string(), c.checkpointing))
    overrides.push_back(o);
  olv2::apply_config_overrides(config, overrides);
  const olv2::Batch batch = first_batch(config, root, samples);
  auto model = olv2::build_detector(config.at("model"));
  model->train();
  const double before_mib = resident_mib();
  std::optional<std::chrono::steady_clock::time_point> start;
  for (int step = 0; step <= steps; ++step) {
    if (step == 1) start = std::chrono::steady_clock::now();  // step 0 warms up
    olv2::LossMap losses;
    {
      std::optional<olv2::AutocastGuard> autocast;
      if (c.precision != "fp32") autocast.emplace(c10::kCPU, olv2::AutocastState{true});
      losses = model->forward_train(batch);
    }
    olv2::total_loss(losses).backward();
    for (at::Tensor& p : model->parameters()) {
      if (p.grad().defined()) p.mutable_grad().zero_();
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - *start).count() / steps;
  std::printf("%s\n",
              nlohmann::json{{"precision", c.precision},
                             {"checkpointing", c.checkpointing},
                             {"step_s", seconds},
                             {"flops", flops_summary(*model, batch, true, c.precision, seconds)},
                             {"rss_before_mib", before_mib},
                             {"peak_rss_mib", peak_resident_mib()},
                             {"large_block_cache", large_block_summary()}}
                  .dump()
                  .c_str());
  return 0;
}

struct FixtureRun {
  std::string config;
  fs::path input;
  fs::path state_dict;
  int64_t scale = 1;
  std::string mode = "train";      // or "eval"
  std::string precision = "fp32";  // or "bf16" (CPU autocast over the forward pass)
  int warmup = 2;
  int steps = 5;
  int threads = 2;
  int profile = 0;  // operators listed from one profiled step after the timed ones (0: none)
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int run_fixture(const FixtureRun& run) {
  olv2::ConfigNode config = olv2::load_config_file(run.config);
  olv2::apply_config_overrides(config, {"model.img_backbone.init_cfg=null"});
  const std::shared_ptr<olv2::DetectorImpl> model = olv2::build_detector(config.at("model"));
  olv2::load_state_dict(*model, olv2::tensors_of(olv2::read_pth(run.state_dict)));
  const bool train = run.mode == "train";
  const olv2::Batch batch =
      olv2::scale_fixture_sample(olv2::read_fixture_batch(run.input, train), run.scale);

  std::map<std::string, double> split;  // one step's stages
  const olv2::bench::StageTimes stage_times;
  std::vector<at::Tensor> trainable;
  for (const at::Tensor& p : model->parameters()) {
    if (p.requires_grad()) trainable.push_back(p);
  }
  torch::optim::AdamW optimizer(trainable, torch::optim::AdamWOptions(1e-4).weight_decay(1e-4));
  if (train) {
    model->train();
  } else {
    model->eval();
  }
  auto step = [&] {
    split.clear();
    olv2::bench::StageTimes::seconds().clear();
    const auto start = std::chrono::steady_clock::now();
    if (!train) {
      torch::NoGradGuard no_grad;
      std::optional<olv2::AutocastGuard> autocast;
      if (run.precision == "bf16") autocast.emplace(c10::kCPU, olv2::AutocastState{true});
      model->predict(batch);
      split["forward_test"] = seconds_since(start);
      return seconds_since(start);
    }
    at::Tensor total;
    {
      std::optional<olv2::AutocastGuard> autocast;
      if (run.precision == "bf16") autocast.emplace(c10::kCPU, olv2::AutocastState{true});
      total = olv2::total_loss(model->forward_train(batch));
    }
    const double forward = seconds_since(start);
    for (const auto& [stage, seconds] : olv2::bench::StageTimes::seconds()) split[stage] = seconds;
    split["forward_train+loss"] = forward;
    split["heads+losses"] = forward - split["backbone"] - split["neck"] - split["view_transformer"];
    auto mark = std::chrono::steady_clock::now();
    total.backward();
    split["backward"] = seconds_since(mark);
    mark = std::chrono::steady_clock::now();
    optimizer.step();
    split["optimizer"] = seconds_since(mark);
    mark = std::chrono::steady_clock::now();
    optimizer.zero_grad();
    split["zero_grad"] = seconds_since(mark);
    return seconds_since(start);
  };
  for (int i = 0; i < run.warmup; ++i) step();
  std::vector<double> walls;
  std::map<std::string, std::vector<double>> splits;
  for (int i = 0; i < run.steps; ++i) {
    walls.push_back(step());
    for (const auto& [stage, seconds] : split) splits[stage].push_back(seconds);
  }
  nlohmann::json split_median = nlohmann::json::object();
  for (const auto& [stage, values] : splits) split_median[stage] = median_of(values);
  nlohmann::json profile = nlohmann::json::array();
  if (run.profile > 0) {
    olv2::OpProfile recording;
    step();
    const std::vector<olv2::OpTime> ops = recording.stop();
    std::fprintf(stderr, "%-40s %10s %8s\n", "operator (one step)", "self s", "calls");
    for (size_t i = 0; i < ops.size() && i < static_cast<size_t>(run.profile); ++i) {
      std::fprintf(stderr, "%-40s %10.3f %8lld\n", ops[i].name.c_str(), ops[i].self_s,
                   static_cast<long long>(ops[i].calls));
      profile.push_back({{"op", ops[i].name}, {"self_s", ops[i].self_s}, {"calls", ops[i].calls}});
    }
  }
  std::printf("%s\n", nlohmann::json{{"bench", "train_step_fixture"},
                                     {"config", run.config},
                                     {"mode", run.mode},
                                     {"precision", run.precision},
                                     {"scale", run.scale},
                                     {"img", batch.images.sizes().vec()},
                                     {"threads", run.threads},
                                     {"warmup", run.warmup},
                                     {"steps", run.steps},
                                     {"median_s", median_of(walls)},
                                     {"min_s", *std::min_element(walls.begin(), walls.end())},
                                     {"max_s", *std::max_element(walls.begin(), walls.end())},
                                     {"split_median", split_median},
                                     {"flops", flops_summary(*model, batch, train, run.precision,
                                                             median_of(walls))},
                                     {"profile", profile},
                                     {"peak_rss_mib", peak_resident_mib()},
                                     {"large_block_cache", large_block_summary()}}
                          .dump()
                          .c_str());
  return 0;
}

nlohmann::json run_child(const std::string& self_args, const Case& c) {
  const std::string command = "\"" + olv2::platform::executable_path().string() + "\" " +
                              self_args + " --case " + c.precision + " " + "--checkpointing " +
                              c.checkpointing;
  int status = 0;
  const std::string output = olv2::platform::run_capturing_stdout(command, status);
  const auto line_start = output.rfind('{');
  if (status != 0 || line_start == std::string::npos) {
    throw olv2::runtime_error("case " + c.precision + " failed: " + output);
  }
  return nlohmann::json::parse(output.substr(line_start));
}

}  // namespace

int main(int argc, char** argv) {
  olv2::install_memory_reusing_allocators();  // as train_ds
  CLI::App app{
      "Measure a training step's time and peak RSS by precision and activation checkpointing."};
  std::string config_file;
  std::string data_root;
  double image_scale = 0.125;
  int64_t samples = 2;
  int steps = 3;
  int threads = 2;
  std::string only_case;
  std::string checkpointing = "off";
  FixtureRun fixture;
  app.add_option("config", config_file, "config whose model is trained, e.g. configs/demo.yaml")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--data-root", data_root, "dataset (default: 4 synthetic frames generated)");
  app.add_option("--image-scale", image_scale, "scale of the generated frames (default 0.125)");
  app.add_option("--samples", samples, "samples per step (default 2)");
  app.add_option("--steps", steps, "timed steps per case, after one warm-up (default 3)");
  app.add_option("--threads", threads, "intra-op threads (default 2)");
  app.add_option("--case", only_case, "run one precision case in this process (internal)");
  app.add_option("--checkpointing", checkpointing,
                 "with --case: off, with_cp, with_cp+model (Baseline) or model (BaselineLarge)");
  app.add_option("--input", fixture.input,
                 "fixture-format sample: time the original benchmark's procedure on it");
  app.add_option("--state-dict", fixture.state_dict, "with --input: the weights to load");
  app.add_option("--scale", fixture.scale, "with --input: resolution factor (default 1: as stored)")
      ->check(CLI::Range(1, 8));
  app.add_option("--mode", fixture.mode,
                 "with --input: train (a step) or eval (forward_test) (default train)")
      ->check(CLI::IsMember({"train", "eval"}));
  app.add_option("--precision", fixture.precision,
                 "with --input: fp32 or bf16 (CPU autocast) (default fp32)")
      ->check(CLI::IsMember({"fp32", "bf16"}));
  app.add_option("--profile", fixture.profile,
                 "with --input: after timing, profile one more step and list its N costliest "
                 "operators by self time");
  app.add_option("--warmup", fixture.warmup, "with --input: untimed steps first (default 2)");
  if (const auto status = olv2::parse_command_line(app, "bench_train_step", argc, argv))
    return *status;
  return olv2::guarded_main("bench_train_step", [&] {
    at::set_num_threads(threads);
    if (!fixture.input.empty()) {
      if (fixture.state_dict.empty()) throw olv2::input_error("--input needs --state-dict");
      fixture.config = config_file;
      fixture.steps = steps;
      fixture.threads = threads;
      return run_fixture(fixture);
    }
    fs::path root = data_root;
    if (!only_case.empty())
      return run_case(config_file, root, {only_case, checkpointing}, samples, steps);
    if (root.empty()) {
      root = fs::temp_directory_path() /
             ("olv2_bench_train_step_" + std::to_string(olv2::platform::process_id()));
      fs::remove_all(root);
      olv2::synthetic::SyntheticDataOptions options;
      options.out = root;
      options.frames = 4;
      options.val_frames = 0;
      options.image_scale = image_scale;
      olv2::synthetic::make_synthetic_data(options);
    }
    const std::string self_args = "'" + config_file + "' --data-root '" + root.string() +
                                  "' --samples " + std::to_string(samples) + " --steps " +
                                  std::to_string(steps) + " --threads " + std::to_string(threads);
    std::printf("%s, %lld samples per step, %d threads, %d timed steps per case\n",
                config_file.c_str(), static_cast<long long>(samples), threads, steps);
    std::printf("%-10s %-14s %10s %16s %14s %10s %10s\n", "precision", "checkpointing", "step s",
                "RSS before MiB", "peak RSS MiB", "GFLOP/s", "% of peak");
    nlohmann::json all = nlohmann::json::array();
    const std::string model_type =
        olv2::load_config_file(config_file).at("model").at("type").as_string();
    for (const std::string& with_checkpointing : checkpointings_of(model_type)) {
      for (const std::string& precision : kPrecisions) {
        const nlohmann::json result = run_child(self_args, {precision, with_checkpointing});
        std::printf("%-10s %-14s %10.3f %16.0f %14.0f %10.1f %10.1f\n", precision.c_str(),
                    with_checkpointing.c_str(), result["step_s"].get<double>(),
                    result["rss_before_mib"].get<double>(), result["peak_rss_mib"].get<double>(),
                    result["flops"]["achieved_gflop_per_s"].get<double>(),
                    100.0 * result["flops"]["share_of_matmul_peak"].get<double>());
        std::fflush(stdout);
        all.push_back(result);
      }
    }
    if (data_root.empty()) fs::remove_all(root);
    std::printf("%s\n", nlohmann::json{{"bench", "train_step"},
                                       {"config", config_file},
                                       {"samples", samples},
                                       {"threads", threads},
                                       {"cases", all}}
                            .dump()
                            .c_str());
    return 0;
  });
}

}  // namespace olv2::programs::bench_train_step
