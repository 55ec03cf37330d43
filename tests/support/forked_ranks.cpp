#include "support/forked_ranks.h"

#include <ATen/Parallel.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "support/rank_processes.h"

namespace olv2::test {

std::vector<int> run_forked_ranks(const std::function<int(ProcessGroupCollective&)>& body,
                                  int world_size, double timeout_s, std::chrono::seconds limit) {
  const int port = free_tcp_port();
  std::vector<pid_t> children;
  for (int64_t rank = 0; rank < world_size; ++rank) {
    const pid_t child = fork();
    if (child == 0) {
      at::set_num_threads(1);
      int status = 99;
      try {
        LaunchEnvironment env;
        env.rank = rank;
        env.world_size = world_size;
        env.local_rank = rank;
        env.local_world_size = world_size;
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
  std::vector<int> statuses(children.size(), -1);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (size_t i = 0; i < children.size(); ++i) {
    int status = 0;
    bool killed = false;
    while (waitpid(children[i], &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        kill(children[i], SIGKILL);
        waitpid(children[i], &status, 0);
        killed = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    statuses[i] = killed ? -1 : (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  return statuses;
}

}  // namespace olv2::test
