#pragma once
#include <chrono>
#include <functional>
#include <vector>

#include "olv2/engine/distributed/process_group.h"

namespace olv2::test {

// Runs `body` in `world_size` forked processes (one thread each) that form a Gloo process group
// on loopback; returns their exit statuses in rank order: the body's return value, 99 for an
// exception (its message on stderr), -1 when still running after `limit` (then killed).
// `timeout_s` is the group's collective timeout.
std::vector<int> run_forked_ranks(const std::function<int(ProcessGroupCollective&)>& body,
                                  int world_size = 2, double timeout_s = 10.0,
                                  std::chrono::seconds limit = std::chrono::seconds(40));

}  // namespace olv2::test
