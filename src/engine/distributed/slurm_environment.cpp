#include "olv2/engine/distributed/slurm_environment.h"

#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "olv2/engine/distributed/slurm_hostlist.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

constexpr int64_t kMaxRanks = 1 << 20;
constexpr int kDefaultMasterPort = 29500;  // mmcv's, torch.distributed's

std::string required_variable(const LaunchVariables& variables, const std::string& name) {
  const std::optional<std::string> value = variables(name);
  if (!value) {
    throw input_error("--launcher slurm needs " + name +
                      " in the environment (srun sets it: start the ranks with srun, e.g. "
                      "through scripts/slurm_train.sh)");
  }
  return *value;
}

int64_t required_integer(const LaunchVariables& variables, const std::string& name, int64_t min,
                         int64_t max) {
  required_variable(variables, name);
  return integer_variable(variables, name, 0, min, max);
}

// A count of SLURM's per-node lists: digits only, at least 1.
std::optional<int64_t> task_count(const std::string& text) {
  if (text.empty() || text.size() > 7) return std::nullopt;
  for (const char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c)) == 0) return std::nullopt;
  }
  const int64_t count = std::stoll(text);
  return count >= 1 ? std::optional<int64_t>(count) : std::nullopt;
}

// Node `node`'s entry of SLURM_TASKS_PER_NODE ("2(x3),1"), or an input error naming it.
int64_t tasks_on_node(const std::string& tasks_per_node, int64_t node) {
  const auto malformed = [&](const std::string& why) {
    return input_error("environment variable SLURM_TASKS_PER_NODE=" + tasks_per_node + ": " + why);
  };
  int64_t first_node = 0;  // of the current entry
  size_t start = 0;
  while (true) {
    const size_t comma = tasks_per_node.find(',', start);
    const std::string entry = tasks_per_node.substr(start, comma - start);
    const size_t repeat = entry.find("(x");
    const std::optional<int64_t> count = task_count(entry.substr(0, repeat));
    std::optional<int64_t> nodes = 1;
    if (repeat != std::string::npos) {
      nodes = entry.back() == ')' ? task_count(entry.substr(repeat + 2, entry.size() - repeat - 3))
                                  : std::nullopt;
    }
    if (!count || !nodes) {
      throw malformed(
          "expected task counts node by node, such as 2(x3),1 (2 tasks on each of 3 "
          "nodes, then 1)");
    }
    if (node < first_node + *nodes) return *count;
    first_node += *nodes;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  throw malformed("no count for SLURM_NODEID=" + std::to_string(node) + ", it lists " +
                  std::to_string(first_node) + " node(s)");
}

// The ranks on this node: its count in SLURM_TASKS_PER_NODE, the layout srun gave the tasks,
// else SLURM_NTASKS_PER_NODE. The latter is only what --ntasks-per-node asked for, an upper
// bound: `srun -n 1 --ntasks-per-node=2` sets it to 2 and SLURM_TASKS_PER_NODE to 1.
int64_t local_world_size(const LaunchVariables& variables, int64_t world_size) {
  if (!variables("SLURM_TASKS_PER_NODE") && variables("SLURM_NTASKS_PER_NODE")) {
    return integer_variable(variables, "SLURM_NTASKS_PER_NODE", 1, 1, world_size);
  }
  const std::string tasks_per_node = required_variable(variables, "SLURM_TASKS_PER_NODE");
  const int64_t node = required_integer(variables, "SLURM_NODEID", 0, kMaxRanks - 1);
  const int64_t count = tasks_on_node(tasks_per_node, node);
  if (count > world_size) {
    throw input_error("environment variable SLURM_TASKS_PER_NODE=" + tasks_per_node + ": " +
                      std::to_string(count) + " tasks on node " + std::to_string(node) +
                      ", more than SLURM_NTASKS=" + std::to_string(world_size));
  }
  return count;
}

// The first host of SLURM_NODELIST.
std::string first_node(const LaunchVariables& variables) {
  const std::string nodelist = required_variable(variables, "SLURM_NODELIST");
  try {
    return expand_slurm_hostlist(nodelist).front();
  } catch (const Error& error) {
    throw input_error("environment variable SLURM_NODELIST=" + nodelist + ": " + error.what() +
                      " (expected SLURM's host list, such as node[01-03,07],gpu-a1)");
  }
}

}  // namespace

LaunchEnvironment slurm_launch_environment(const LaunchVariables& variables) {
  LaunchEnvironment env;
  env.world_size = required_integer(variables, "SLURM_NTASKS", 1, kMaxRanks);
  env.rank = required_integer(variables, "SLURM_PROCID", 0, env.world_size - 1);
  env.local_world_size = local_world_size(variables, env.world_size);
  env.local_rank = required_integer(variables, "SLURM_LOCALID", 0, env.local_world_size - 1);
  const std::optional<std::string> master_addr = variables("MASTER_ADDR");
  env.master_addr = master_addr ? *master_addr : first_node(variables);
  env.master_port =
      static_cast<int>(integer_variable(variables, "MASTER_PORT", kDefaultMasterPort, 1, 65535));
  return env;
}

}  // namespace olv2
