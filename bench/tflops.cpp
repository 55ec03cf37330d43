// What a device can multiply: the median time of a square N x N matrix product `a @ b` per dtype
// (warm-up runs excluded, synchronised on CUDA) and its rate, 2 N^3 / time, as TFLOP/s on CUDA
// and GFLOP/s on the CPU. A dtype this LibTorch cannot multiply on the device is listed as
// unsupported. Prints the device, a table and one JSON line.
#include <ATen/Parallel.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "device_description.h"
#include "matmul_rate.h"
#include "olv2/util/app_main.h"
#include "olv2/util/environment.h"
#include "olv2/util/error.h"

namespace olv2::programs::bench_tflops {

namespace {

struct Arguments {
  std::optional<int64_t> n;
  int runs = 10;
  std::string dtypes;
  std::string device;  // empty: CUDA when available, else the CPU
  std::optional<int> threads;
};

c10::ScalarType scalar_type(const std::string& name) {
  static const std::map<std::string, c10::ScalarType> types = {
      {"fp16", torch::kHalf}, {"bf16", torch::kBFloat16}, {"fp32", torch::kFloat}};
  const auto found = types.find(name);
  if (found == types.end()) {
    throw olv2::input_error("--dtypes: unknown dtype `" + name + "`, expected fp16, bf16 or fp32");
  }
  return found->second;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) items.push_back(item);
  }
  if (items.empty()) throw olv2::input_error("--dtypes: expected a list such as fp16,fp32");
  return items;
}

c10::Device chosen_device(const std::string& name) {
  if (name == "cpu" || (name.empty() && !torch::cuda::is_available())) {
    return c10::Device(c10::kCPU);
  }
  if (!torch::cuda::is_available()) {
    throw olv2::input_error(
        "--device cuda: no CUDA device is available (this LibTorch has none, or "
        "CUDA_VISIBLE_DEVICES hides them); use --device cpu");
  }
  return c10::Device(c10::kCUDA, 0);
}

int run(const Arguments& args) {
  const c10::Device device = chosen_device(args.device);
  const bool cuda = device.is_cuda();
  if (args.threads) at::set_num_threads(*args.threads);
  const int64_t n = args.n.value_or(cuda ? 8192 : 1024);
  const std::vector<std::string> dtypes =
      split_list(args.dtypes.empty() ? (cuda ? "fp16,bf16,fp32" : "bf16,fp32") : args.dtypes);
  for (const std::string& dtype : dtypes) scalar_type(dtype);

  const olv2::DeviceDescription description = olv2::describe_device(device);
  const std::string blas = cuda ? "cuBLAS" : olv2::loaded_blas_library();
  const double unit = cuda ? 1e12 : 1e9;
  const char* unit_name = cuda ? "TFLOP/s" : "GFLOP/s";
  std::printf("device: %s (%s), memory %.1f GiB\n", device.str().c_str(), description.name.c_str(),
              description.memory_gib);
  std::printf("BLAS: %s\n", blas.c_str());
  if (!cuda) std::printf("threads: %d\n", at::get_num_threads());
  std::printf("matmul %lld x %lld, median of %d runs (2 warm-up runs excluded)\n\n",
              static_cast<long long>(n), static_cast<long long>(n), args.runs);
  std::printf("%-6s %12s %12s\n", "dtype", "median_ms", unit_name);

  nlohmann::ordered_json json;
  json["bench"] = "tflops";
  json["device"] = device.str();
  json["device_name"] = description.name;
  json["memory_gib"] = description.memory_gib;
  json["blas"] = blas;
  json["threads"] = at::get_num_threads();
  json["n"] = n;
  json["runs"] = args.runs;
  json["results"] = nlohmann::ordered_json::array();
  for (const std::string& dtype : dtypes) {
    const olv2::bench::MatmulRate result =
        olv2::bench::matmul_rate(scalar_type(dtype), n, args.runs, device);
    nlohmann::ordered_json entry;
    entry["dtype"] = dtype;
    if (result.median_s) {
      const double rate = result.flops_per_s / unit;
      std::printf("%-6s %12.3f %12.2f\n", dtype.c_str(), *result.median_s * 1e3, rate);
      entry["median_s"] = *result.median_s;
      entry[cuda ? "tflop_per_s" : "gflop_per_s"] = rate;
    } else {
      std::printf("%-6s %12s %12s  (%s)\n", dtype.c_str(), "unsupported", "-",
                  result.unsupported_reason.c_str());
      entry["unsupported"] = result.unsupported_reason;
    }
    json["results"].push_back(entry);
  }
  std::printf("\n%s\n", json.dump().c_str());
  return static_cast<int>(olv2::ExitStatus::kSuccess);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Measure a device's matrix-multiply throughput per dtype (TFLOP/s on CUDA, GFLOP/s on "
      "the CPU)."};
  Arguments args;
  app.add_option("--n", args.n,
                 "matrix size N of the N x N product (default 8192 on CUDA, 1024 "
                 "on the CPU)")
      ->check(CLI::PositiveNumber);
  app.add_option("--runs", args.runs, "timed runs; the median is reported (default 10)")
      ->check(CLI::PositiveNumber);
  app.add_option("--dtypes", args.dtypes,
                 "comma-separated dtypes among fp16, bf16, fp32 (default fp16,bf16,fp32 on CUDA, "
                 "bf16,fp32 on the CPU)");
  app.add_option("--device", args.device, "cuda or cpu (default: cuda when available)")
      ->check(CLI::IsMember({"cuda", "cpu"}));
  app.add_option("--threads", args.threads, "intra-op threads on the CPU (default: LibTorch's)")
      ->check(CLI::PositiveNumber);
  if (const auto status = olv2::parse_command_line(app, "bench_tflops", argc, argv)) return *status;
  return olv2::guarded_main("bench_tflops", [&] { return run(args); });
}

}  // namespace olv2::programs::bench_tflops
