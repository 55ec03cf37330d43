// The c10d collectives over Gloo on loopback, with two forked ranks: broadcast, all-reduce,
// gathering, the bucketed gradient average and a lost rank. Each rank reports through its exit
// status; every wait is bounded.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <torch/torch.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <thread>

#include "olv2/engine/dist/all_reduce_gradient_sync.h"
#include "olv2/engine/dist/process_group.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

// Runs `body(rank)` in two forked processes that form a process group; returns their exit
// statuses (the body's return value; 99 for an exception, -1 when killed after `limit`).
std::vector<int> run_two_ranks(const std::function<int(ProcessGroupCollective&)>& body,
                               double timeout_s = 10.0,
                               std::chrono::seconds limit = std::chrono::seconds(40)) {
  const int port = free_port();
  std::vector<pid_t> children;
  for (int64_t rank = 0; rank < 2; ++rank) {
    const pid_t child = fork();
    if (child == 0) {
      at::set_num_threads(1);
      int status = 99;
      try {
        LaunchEnvironment env;
        env.rank = rank;
        env.world_size = 2;
        env.local_rank = rank;
        env.local_world_size = 2;
        env.master_port = port;
        DistributedOptions options;
        options.timeout_s = timeout_s;
        ProcessGroupCollective collective(env, options, c10::Device(c10::kCPU));
        status = body(collective);
      } catch (const std::exception& error) {
        std::fprintf(stderr, "rank %ld: %s\n", static_cast<long>(rank), error.what());
      }
      std::fflush(stderr);
      std::_Exit(status);
    }
    children.push_back(child);
  }
  std::vector<int> statuses(2, -1);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (size_t i = 0; i < children.size(); ++i) {
    int status = 0;
    while (waitpid(children[i], &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        kill(children[i], SIGKILL);
        waitpid(children[i], &status, 0);
        status = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    statuses[i] = status == -1 ? -1 : (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  return statuses;
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

// Different gradients on each rank (and a parameter with a gradient on one rank only) become
// their average on both; an overflow on one rank is an overflow on all.
TEST(AllReduceGradientSync, AveragesGradientsInSmallBucketsAndSharesOverflow) {
  const auto statuses = run_two_ranks([](ProcessGroupCollective& c) {
    const double r = static_cast<double>(c.rank());
    std::vector<at::Tensor> params = {torch::zeros({4, 3}), torch::zeros({5}),
                                      torch::zeros({2}, torch::kDouble)};
    params[0].mutable_grad() = torch::full({4, 3}, 2.0 + 2.0 * r);
    if (c.rank() == 1) params[1].mutable_grad() = torch::full({5}, 4.0);
    params[2].mutable_grad() = torch::full({2}, r, torch::kDouble);
    AllReduceGradientSync sync(c, /*bucket_cap_mb=*/40.0 / (1024 * 1024));  // 40-byte buckets
    const bool overflow = sync.synchronize(params, /*local_overflow=*/false);
    const bool shared_overflow = sync.synchronize(params, /*local_overflow=*/c.rank() == 1);
    // The second call averaged already-equal gradients: unchanged.
    const bool ok = !overflow && shared_overflow &&
                    params[0].grad().equal(torch::full({4, 3}, 3.0)) &&
                    params[1].grad().equal(torch::full({5}, 2.0)) &&
                    params[2].grad().equal(torch::full({2}, 0.5, torch::kDouble));
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
