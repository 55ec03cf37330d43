#pragma once
// The rate of a square N x N matrix product `a @ b` on a device in a dtype: the median time of
// `runs` products after two warm-up runs (synchronised on CUDA), 2 N^3 flops each. Shared by
// bench_tflops and bench_train_step, whose achieved rate is reported as a share of this one.
#include <torch/cuda.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace olv2::bench {

struct MatmulRate {
  std::optional<double> median_s;  // nullopt: the device cannot multiply this dtype
  std::string unsupported_reason;  // the first line of LibTorch's error
  double flops_per_s = 0.0;
};

inline double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : 0.5 * (values[middle - 1] + values[middle]);
}

inline MatmulRate matmul_rate(c10::ScalarType dtype, int64_t n, int runs,
                              const c10::Device& device) {
  constexpr int kWarmupRuns = 2;
  const auto synchronise = [&] {
    if (device.is_cuda()) torch::cuda::synchronize(device.index());
  };
  MatmulRate rate;
  const auto options = torch::TensorOptions().dtype(dtype).device(device);
  torch::NoGradGuard no_grad;
  try {
    const torch::Tensor a = torch::randn({n, n}, options);
    const torch::Tensor b = torch::randn({n, n}, options);
    for (int i = 0; i < kWarmupRuns; ++i) torch::matmul(a, b);
    synchronise();
    std::vector<double> seconds;
    for (int i = 0; i < runs; ++i) {
      const auto start = std::chrono::steady_clock::now();
      const torch::Tensor c = torch::matmul(a, b);
      synchronise();
      seconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    rate.median_s = median_of(seconds);
    rate.flops_per_s = 2.0 * static_cast<double>(n) * static_cast<double>(n) *
                       static_cast<double>(n) / *rate.median_s;
  } catch (const c10::Error& error) {
    const std::string message = error.what_without_backtrace();
    rate.unsupported_reason = message.substr(0, message.find('\n'));
  }
  return rate;
}

}  // namespace olv2::bench
