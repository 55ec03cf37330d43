// Benchmark of the attention kernels behind every transformer layer of the DETR heads, at the
// token counts of the baseline: the lane encoder's self-attention over the 50 x 100 BEV cells,
// the lane decoder's cross-attention of 50 queries, and the traffic-element encoder at the
// fixture's 8 x 10 front-view tokens. Each case runs through `dot_product_attention` (the
// kernel the model gets), the blocked kernel, every fused kernel this CPU runs and, with
// LibTorch 2.1 or later, PyTorch's scaled_dot_product_attention; forward
// under no_grad and forward + backward with dropout 0.1, wall and process CPU seconds, the
// fastest of the repeats. Prints a table and one JSON line.
#include "olv2/models/ops/attention.h"

#include <torch/torch.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "olv2/models/ops/blocked_attention.h"
#include "olv2/models/ops/fused_attention.h"
#include "olv2/util/app_main.h"
#include "olv2/util/compat.h"

namespace olv2::programs::bench_attention {

namespace {

struct Case {
  std::string name;
  int64_t queries;
  int64_t keys;
};

struct Timing {
  double forward_wall_s = 0, forward_cpu_s = 0, backward_wall_s = 0, backward_cpu_s = 0;
};

// (q, k, v, key padding mask, dropout p, training) -> output [B, H, Lq, D].
using Kernel = std::function<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&,
                                        const at::Tensor&, double, bool)>;

struct NamedKernel {
  std::string name;
  Kernel run;
};

// The kernels to compare: the dispatching entry point, then each kernel on q scaled as it scales.
std::vector<NamedKernel> kernels() {
  const auto scaled = [](const at::Tensor& q) {
    return q / std::sqrt(static_cast<double>(q.size(3)));
  };
  std::vector<NamedKernel> all = {
      {"dot_product_attention", olv2::dot_product_attention},
      {"blocked", [=](const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                      const at::Tensor& mask, double p, bool training) {
         return olv2::blocked_attention(scaled(q), k, v, mask, training ? p : 0.0, 7);
       }}};
  const olv2::AttentionSimd best = olv2::best_attention_simd();
  const auto fused = [&](const char* name, olv2::AttentionSimd simd) {
    all.push_back({name, [=](const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                             const at::Tensor& mask, double p, bool training) {
                     return olv2::fused_attention(scaled(q), k, v, mask, training ? p : 0.0, 7,
                                                  simd);
                   }});
  };
  if (best != olv2::AttentionSimd::kNone) fused("fused_avx2", olv2::AttentionSimd::kAvx2);
  if (best == olv2::AttentionSimd::kAvx512) fused("fused_avx512", olv2::AttentionSimd::kAvx512);
#if OLV2_TORCH_AT_LEAST(2, 1)
  // PyTorch's own CPU kernel (flash attention for the CPU), the candidate the fused kernel is
  // measured against; its dropout draws from LibTorch's generator.
  all.push_back({"torch_sdpa", [](const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                  const at::Tensor& mask, double p, bool training) {
                   const at::Tensor attend = mask.logical_not().view({q.size(0), 1, 1, k.size(2)});
                   return at::scaled_dot_product_attention(q, k, v, attend, training ? p : 0.0);
                 }});
#endif
  return all;
}

// Fastest wall and CPU seconds of `repeats` runs of fn.
template <typename Fn>
std::pair<double, double> time_it(Fn&& fn, int repeats) {
  double wall_s = 1e30, cpu_s = 1e30;
  for (int i = 0; i < repeats; ++i) {
    const auto wall = std::chrono::steady_clock::now();
    const std::clock_t cpu = std::clock();
    fn();
    wall_s = std::min(
        wall_s, std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count());
    cpu_s = std::min(cpu_s, static_cast<double>(std::clock() - cpu) / CLOCKS_PER_SEC);
  }
  return {wall_s, cpu_s};
}

Timing run_case(const Case& c, const Kernel& kernel, int64_t heads, int64_t head_dim, int repeats) {
  torch::manual_seed(0);
  const auto q = torch::randn({1, heads, c.queries, head_dim}).requires_grad_(true);
  const auto k = torch::randn({1, heads, c.keys, head_dim}).requires_grad_(true);
  const auto v = torch::randn({1, heads, c.keys, head_dim}).requires_grad_(true);
  const auto mask = torch::zeros({1, c.keys}, torch::kBool);
  Timing t;
  {
    torch::NoGradGuard no_grad;
    kernel(q, k, v, mask, 0.0, false);  // warm-up
    std::tie(t.forward_wall_s, t.forward_cpu_s) =
        time_it([&] { kernel(q, k, v, mask, 0.0, false); }, repeats);
  }
  std::tie(t.backward_wall_s, t.backward_cpu_s) =
      time_it([&] { kernel(q, k, v, mask, 0.1, true).sum().backward(); }, repeats);
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Measure the DETR heads' attention kernels."};
  int repeats = 3;
  int threads = 1;
  app.add_option("--repeats", repeats, "timed runs per case (default 3)")
      ->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "intra-op threads (default 1)")->check(CLI::PositiveNumber);
  if (const auto status = olv2::parse_command_line(app, "bench_attention", argc, argv))
    return *status;
  return olv2::guarded_main("bench_attention", [&] {
    at::set_num_threads(threads);

    const int64_t heads = 4, head_dim = 16;  // embed_dims 64, num_heads 4
    const std::vector<Case> cases = {{"lane_encoder_self_attn", 5000, 5000},
                                     {"lane_decoder_cross_attn", 50, 5000},
                                     {"te_encoder_self_attn_fixture", 80, 80}};
    std::printf("%-30s %-22s %8s %8s %12s %12s %12s %12s\n", "case", "kernel", "queries", "keys",
                "fwd_wall_s", "fwd_cpu_s", "fwdbwd_wall_s", "fwdbwd_cpu_s");
    std::string json = "{\"bench\":\"attention\",\"threads\":" + std::to_string(threads) +
                       ",\"heads\":4,\"head_dim\":16,\"cases\":[";
    bool first = true;
    for (const Case& c : cases) {
      for (const NamedKernel& kernel : kernels()) {
        const Timing t = run_case(c, kernel.run, heads, head_dim, repeats);
        std::printf("%-30s %-22s %8lld %8lld %12.4f %12.4f %12.4f %12.4f\n", c.name.c_str(),
                    kernel.name.c_str(), static_cast<long long>(c.queries),
                    static_cast<long long>(c.keys), t.forward_wall_s, t.forward_cpu_s,
                    t.backward_wall_s, t.backward_cpu_s);
        char entry[512];
        std::snprintf(entry, sizeof(entry),
                      "%s{\"name\":\"%s\",\"kernel\":\"%s\",\"queries\":%lld,\"keys\":%lld,"
                      "\"forward_wall_s\":%.6f,\"forward_cpu_s\":%.6f,"
                      "\"forward_backward_wall_s\":%.6f,\"forward_backward_cpu_s\":%.6f}",
                      first ? "" : ",", c.name.c_str(), kernel.name.c_str(),
                      static_cast<long long>(c.queries), static_cast<long long>(c.keys),
                      t.forward_wall_s, t.forward_cpu_s, t.backward_wall_s, t.backward_cpu_s);
        json += entry;
        first = false;
      }
    }
    std::printf("%s]}\n", json.c_str());
    return 0;
  });
}

}  // namespace olv2::programs::bench_attention
