// Benchmark of the attention kernel behind every transformer layer of the DETR heads
// (`dot_product_attention`), at the token counts of the baseline: the lane encoder's
// self-attention over the 50 x 100 BEV cells, the lane decoder's cross-attention of 50 queries,
// and the traffic-element encoder at the fixture's 8 x 10 front-view tokens. Forward and
// forward + backward, wall and process CPU seconds. Prints a table and one JSON line.
#include "olv2/models/layers/attention.h"

#include <torch/torch.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "olv2/util/app_main.h"

namespace {

struct Case {
  std::string name;
  int64_t queries;
  int64_t keys;
};

struct Timing {
  double forward_wall_s = 0, forward_cpu_s = 0, backward_wall_s = 0, backward_cpu_s = 0;
};

template <typename Fn>
std::pair<double, double> time_it(Fn&& fn, int repeats) {
  const auto wall = std::chrono::steady_clock::now();
  const std::clock_t cpu = std::clock();
  for (int i = 0; i < repeats; ++i) fn();
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count() / repeats,
          static_cast<double>(std::clock() - cpu) / CLOCKS_PER_SEC / repeats};
}

Timing run_case(const Case& c, int64_t heads, int64_t head_dim, int repeats) {
  torch::manual_seed(0);
  const auto q = torch::randn({1, heads, c.queries, head_dim}).requires_grad_(true);
  const auto k = torch::randn({1, heads, c.keys, head_dim}).requires_grad_(true);
  const auto v = torch::randn({1, heads, c.keys, head_dim}).requires_grad_(true);
  const auto mask = torch::zeros({1, c.keys}, torch::kBool);
  Timing t;
  {
    torch::NoGradGuard no_grad;
    olv2::dot_product_attention(q, k, v, mask, 0.0, false);  // warm-up
    std::tie(t.forward_wall_s, t.forward_cpu_s) =
        time_it([&] { olv2::dot_product_attention(q, k, v, mask, 0.0, false); }, repeats);
  }
  std::tie(t.backward_wall_s, t.backward_cpu_s) = time_it(
      [&] { olv2::dot_product_attention(q, k, v, mask, 0.1, true).sum().backward(); }, repeats);
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Benchmark of the DETR heads' attention kernel"};
  int repeats = 3;
  int threads = 1;
  app.add_option("--repeats", repeats, "timed runs per case")->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "intra-op threads")->check(CLI::PositiveNumber);
  if (const auto status = olv2::parse_command_line(app, "bench_attention", argc, argv))
    return *status;
  return olv2::guarded_main("bench_attention", [&] {
    at::set_num_threads(threads);

    const int64_t heads = 4, head_dim = 16;  // embed_dims 64, num_heads 4
    const std::vector<Case> cases = {{"lane_encoder_self_attn", 5000, 5000},
                                     {"lane_decoder_cross_attn", 50, 5000},
                                     {"te_encoder_self_attn_fixture", 80, 80}};
    std::printf("%-30s %8s %8s %12s %12s %12s %12s\n", "case", "queries", "keys", "fwd_wall_s",
                "fwd_cpu_s", "fwdbwd_wall_s", "fwdbwd_cpu_s");
    std::string json = "{\"bench\":\"attention\",\"threads\":" + std::to_string(threads) +
                       ",\"heads\":4,\"head_dim\":16,\"cases\":[";
    for (size_t i = 0; i < cases.size(); ++i) {
      const Timing t = run_case(cases[i], heads, head_dim, repeats);
      std::printf("%-30s %8lld %8lld %12.4f %12.4f %12.4f %12.4f\n", cases[i].name.c_str(),
                  static_cast<long long>(cases[i].queries), static_cast<long long>(cases[i].keys),
                  t.forward_wall_s, t.forward_cpu_s, t.backward_wall_s, t.backward_cpu_s);
      char entry[512];
      std::snprintf(entry, sizeof(entry),
                    "%s{\"name\":\"%s\",\"queries\":%lld,\"keys\":%lld,\"forward_wall_s\":%.6f,"
                    "\"forward_cpu_s\":%.6f,\"forward_backward_wall_s\":%.6f,"
                    "\"forward_backward_cpu_s\":%.6f}",
                    i ? "," : "", cases[i].name.c_str(), static_cast<long long>(cases[i].queries),
                    static_cast<long long>(cases[i].keys), t.forward_wall_s, t.forward_cpu_s,
                    t.backward_wall_s, t.backward_cpu_s);
      json += entry;
    }
    std::printf("%s]}\n", json.c_str());
    return 0;
  });
}
