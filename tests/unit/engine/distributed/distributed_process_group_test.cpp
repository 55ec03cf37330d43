// The c10d collectives over Gloo on loopback, with two forked ranks: broadcast, all-reduce,
// gathering, reduce-scatter and a lost rank. Each rank reports through its exit
// status; every wait is bounded.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <chrono>
#include <functional>
#include <thread>

#include "olv2/engine/distributed/process_group.h"
#include "olv2/util/error.h"
#include "support/forked_ranks.h"

namespace olv2 {
namespace {

std::vector<int> run_two_ranks(const std::function<int(ProcessGroupCollective&)>& body,
                               double timeout_s = 10.0,
                               std::chrono::seconds limit = std::chrono::seconds(40)) {
  return test::run_forked_ranks(body, 2, timeout_s, limit);
}

TEST(ProcessGroupCollective, BroadcastAllReduceAndGatherAcrossTwoRanks) {
  const auto statuses = run_two_ranks([](ProcessGroupCollective& c) {
    const double r = static_cast<double>(c.rank());
    std::vector<at::Tensor> broadcast = {torch::full({3}, 10.0 + r)};
    c.broadcast(broadcast, 0);
    std::vector<at::Tensor> sum = {torch::full({2}, 1.0 + r), torch::full({1}, r, torch::kLong)};
    c.all_reduce_sum(sum);
    const auto gathered = c.all_gather_bytes(std::string(static_cast<size_t>(c.rank()) + 1, 'x'));
    c.barrier();
    const bool ok = broadcast[0].equal(torch::full({3}, 10.0)) &&
                    sum[0].equal(torch::full({2}, 3.0)) &&
                    sum[1].equal(torch::full({1}, 1, torch::kLong)) &&
                    gathered == std::vector<std::string>{"x", "xx"} && c.backend() == "gloo";
    return ok ? 0 : 1;
  });
  EXPECT_EQ(statuses, (std::vector<int>{0, 0}));
}

// The background collectives the gradient sync and ZeRO use: an all-reduce waited for later,
// a reduce-scatter (native or emulated, as this LibTorch's Gloo has it) and an all-gather.
TEST(ProcessGroupCollective, StartedAllReduceReduceScatterAndAllGather) {
  const auto statuses = run_two_ranks([](ProcessGroupCollective& c) {
    const double r = static_cast<double>(c.rank());
    at::Tensor summed = torch::arange(6, torch::kFloat) + r;
    auto pending = c.start_all_reduce_sum(summed);
    // Parts 0 and 1 of [0, 1, 2, 3] + 10 r: rank 0 gets [0 + 10, 1 + 11], rank 1 [2 + 12, 3 + 13].
    at::Tensor input = torch::arange(4, torch::kFloat) + 10.0 * r;
    at::Tensor part = torch::empty({2});
    auto scattered = c.start_reduce_scatter_sum(input, part);
    scattered->wait();
    pending->wait();
    at::Tensor gathered = torch::empty({4});
    c.all_gather(torch::full({2}, 1.0 + r), gathered);
    const at::Tensor expected_part =
        c.rank() == 0 ? torch::tensor({10.0f, 12.0f}) : torch::tensor({14.0f, 16.0f});
    const bool ok = summed.equal(torch::arange(6, torch::kFloat) * 2 + 1) &&
                    part.equal(expected_part) &&
                    gathered.equal(torch::tensor({1.0f, 1.0f, 2.0f, 2.0f})) &&
                    c.reduce_scatter_method().rfind("gloo ", 0) == 0;
    return ok ? 0 : 1;
  });
  EXPECT_EQ(statuses, (std::vector<int>{0, 0}));
}

TEST(ProcessGroupCollective, ALostRankIsNamedByTheSurvivorWithinTheTimeout) {
  const auto start = std::chrono::steady_clock::now();
  const auto statuses = run_two_ranks(
      [](ProcessGroupCollective& c) {
        if (c.rank() == 1) std::_Exit(7);  // dies without a word
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        std::vector<at::Tensor> tensors = {torch::ones({1})};
        try {
          c.all_reduce_sum(tensors);
        } catch (const Error& error) {
          const std::string message = error.what();
          return message.find("lost rank 1") != std::string::npos ? 0 : 2;
        }
        return 3;
      },
      /*timeout_s=*/5.0);
  EXPECT_EQ(statuses, (std::vector<int>{0, 7}));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

}  // namespace
}  // namespace olv2
