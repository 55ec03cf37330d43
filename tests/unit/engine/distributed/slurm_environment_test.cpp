// --launcher slurm: srun's variables read as mmcv's _init_dist_slurm reads them, each missing
// or malformed one named in the error.
#include "olv2/engine/distributed/slurm_environment.h"

#include <gtest/gtest.h>

#include <map>

#include "olv2/util/error.h"

namespace olv2 {
namespace {

using Variables = std::map<std::string, std::string>;

// srun's variables for rank 3 of 4, two tasks on each of two nodes (node 1), as
// `srun -N 2 -n 4` on nodes gpu[07-08] sets them.
Variables srun_variables() {
  return {{"SLURM_PROCID", "3"},
          {"SLURM_NTASKS", "4"},
          {"SLURM_LOCALID", "1"},
          {"SLURM_NODEID", "1"},
          {"SLURM_TASKS_PER_NODE", "2(x2)"},
          {"SLURM_NODELIST", "gpu[07-08]"}};
}

LaunchVariables table(const Variables& variables) {
  return [variables](const std::string& name) -> std::optional<std::string> {
    const auto found = variables.find(name);
    if (found == variables.end()) return std::nullopt;
    return found->second;
  };
}

LaunchEnvironment read(const Variables& variables) {
  return launch_environment("slurm", 0, table(variables));
}

// The message of the input error reading `variables` throws ("" when none is thrown).
std::string input_error_of(const Variables& variables) {
  try {
    read(variables);
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), ExitStatus::kBadInput);
    return error.what();
  }
  return "";
}

Variables without(Variables variables, const std::string& name) {
  variables.erase(name);
  return variables;
}

Variables with(Variables variables, const std::string& name, const std::string& value) {
  variables[name] = value;
  return variables;
}

TEST(SlurmEnvironment, RanksAndMasterComeFromSrunsVariables) {
  const LaunchEnvironment env = read(srun_variables());
  EXPECT_EQ(env.rank, 3);
  EXPECT_EQ(env.world_size, 4);
  EXPECT_EQ(env.local_rank, 1);
  EXPECT_EQ(env.local_world_size, 2);
  EXPECT_EQ(env.master_addr, "gpu07");
  EXPECT_EQ(env.master_port, 29500);  // mmcv's default
  EXPECT_TRUE(env.distributed());
  EXPECT_TRUE(launcher_is_distributed("slurm"));
}

TEST(SlurmEnvironment, MasterAddrAndPortInTheEnvironmentWin) {
  Variables variables = with(srun_variables(), "MASTER_ADDR", "10.0.0.9");
  variables["MASTER_PORT"] = "12345";
  const LaunchEnvironment env = read(variables);
  EXPECT_EQ(env.master_addr, "10.0.0.9");
  EXPECT_EQ(env.master_port, 12345);
  // The node list is not needed then.
  EXPECT_EQ(read(without(variables, "SLURM_NODELIST")).master_addr, "10.0.0.9");
}

TEST(SlurmEnvironment, TasksPerNodeIsThisNodesCount) {
  Variables variables = with(srun_variables(), "SLURM_TASKS_PER_NODE", "3,1(x2)");
  variables["SLURM_NTASKS"] = "5";
  variables["SLURM_LOCALID"] = "0";
  EXPECT_EQ(read(with(variables, "SLURM_NODEID", "0")).local_world_size, 3);
  EXPECT_EQ(read(with(variables, "SLURM_NODEID", "1")).local_world_size, 1);
  EXPECT_EQ(read(with(variables, "SLURM_NODEID", "2")).local_world_size, 1);
  variables["SLURM_TASKS_PER_NODE"] = "2(x3),1";
  variables["SLURM_NTASKS"] = "7";
  EXPECT_EQ(read(with(variables, "SLURM_NODEID", "2")).local_world_size, 2);
  EXPECT_EQ(read(with(variables, "SLURM_NODEID", "3")).local_world_size, 1);
  variables["SLURM_NODEID"] = "0";
  EXPECT_EQ(read(with(variables, "SLURM_TASKS_PER_NODE", "7")).local_world_size, 7);
}

// SLURM_NTASKS_PER_NODE is what --ntasks-per-node asked for, at most: `srun -n 1
// --ntasks-per-node=2` sets it to 2 and SLURM_TASKS_PER_NODE to 1 (measured, SLURM 22.05).
TEST(SlurmEnvironment, TasksPerNodeWinsOverNtasksPerNodeWhichStandsInForIt) {
  Variables variables = with(srun_variables(), "SLURM_NTASKS", "1");
  variables["SLURM_PROCID"] = "0";
  variables["SLURM_LOCALID"] = "0";
  variables["SLURM_NODEID"] = "0";
  variables["SLURM_TASKS_PER_NODE"] = "1";
  variables["SLURM_NTASKS_PER_NODE"] = "2";
  EXPECT_EQ(read(variables).local_world_size, 1);
  const Variables only_ntasks_per_node =
      with(without(srun_variables(), "SLURM_TASKS_PER_NODE"), "SLURM_NTASKS_PER_NODE", "2");
  EXPECT_EQ(read(only_ntasks_per_node).local_world_size, 2);
  EXPECT_EQ(read(without(only_ntasks_per_node, "SLURM_NODEID")).local_world_size, 2);
}

TEST(SlurmEnvironment, EachMissingVariableIsNamed) {
  for (const char* name : {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_NODEID",
                           "SLURM_TASKS_PER_NODE", "SLURM_NODELIST"}) {
    EXPECT_EQ(input_error_of(without(srun_variables(), name)),
              std::string("--launcher slurm needs ") + name +
                  " in the environment (srun sets it: start the ranks with srun, e.g. through "
                  "scripts/slurm_train.sh)")
        << name;
  }
}

TEST(SlurmEnvironment, EachMalformedVariableIsNamedWithWhatWasExpected) {
  const Variables variables = srun_variables();
  EXPECT_EQ(input_error_of(with(variables, "SLURM_NTASKS", "four")),
            "environment variable SLURM_NTASKS=four: expected an integer in [1, 1048576]");
  EXPECT_EQ(input_error_of(with(variables, "SLURM_PROCID", "4")),
            "environment variable SLURM_PROCID=4: expected an integer in [0, 3]");
  EXPECT_EQ(input_error_of(with(variables, "SLURM_LOCALID", "2")),
            "environment variable SLURM_LOCALID=2: expected an integer in [0, 1]");
  EXPECT_EQ(input_error_of(with(variables, "SLURM_NODEID", "-1")),
            "environment variable SLURM_NODEID=-1: expected an integer in [0, 1048575]");
  EXPECT_EQ(input_error_of(
                with(without(variables, "SLURM_TASKS_PER_NODE"), "SLURM_NTASKS_PER_NODE", "5")),
            "environment variable SLURM_NTASKS_PER_NODE=5: expected an integer in [1, 4]");
  EXPECT_EQ(input_error_of(with(variables, "MASTER_PORT", "70000")),
            "environment variable MASTER_PORT=70000: expected an integer in [1, 65535]");
}

TEST(SlurmEnvironment, AMalformedTasksPerNodeIsNamed) {
  const std::string expected =
      ": expected task counts node by node, such as 2(x3),1 (2 tasks on each of 3 nodes, then 1)";
  for (const char* value : {"2(x", "2(x)", "(x2)", "2x2", "2,", "0", "two", "2(x2"}) {
    EXPECT_EQ(input_error_of(with(srun_variables(), "SLURM_TASKS_PER_NODE", value)),
              std::string("environment variable SLURM_TASKS_PER_NODE=") + value + expected)
        << value;
  }
  EXPECT_EQ(input_error_of(with(srun_variables(), "SLURM_TASKS_PER_NODE", "2")),
            "environment variable SLURM_TASKS_PER_NODE=2: no count for SLURM_NODEID=1, it lists "
            "1 node(s)");
  EXPECT_EQ(input_error_of(with(srun_variables(), "SLURM_TASKS_PER_NODE", "8(x2)")),
            "environment variable SLURM_TASKS_PER_NODE=8(x2): 8 tasks on node 1, more than "
            "SLURM_NTASKS=4");
}

TEST(SlurmEnvironment, ANodeListThatCannotBeParsedIsNamed) {
  EXPECT_EQ(input_error_of(with(srun_variables(), "SLURM_NODELIST", "node[3-")),
            "environment variable SLURM_NODELIST=node[3-: a [ without its ] (expected SLURM's "
            "host list, such as node[01-03,07],gpu-a1)");
}

}  // namespace
}  // namespace olv2
