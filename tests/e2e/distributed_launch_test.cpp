// The launchers of multi-process training, scripts/dist_train.sh and scripts/torchrun.py, run
// on a stand-in for train_ds that prints its environment: they start every rank with
// torchrun's variables and stop the run when a rank fails.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "support/rank_processes.h"
#include "support/run_command.h"
#include "support/temp_files.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;
using test::RankLaunch;
using test::RankProcesses;
using test::RankResult;

// Bounds a whole launch; the stand-ins end at once unless stopped.
constexpr seconds kLaunchTimeout{30};

const char* const kShowEnvironment =
    "echo \"rank=$RANK world=$WORLD_SIZE local=$LOCAL_RANK local_world=$LOCAL_WORLD_SIZE "
    "addr=$MASTER_ADDR port=$MASTER_PORT omp=$OMP_NUM_THREADS args=$*\"\n";

// Rank 1 fails with status 3 while rank 0 would run for 30 s.
const char* const kRankOneFails =
    "if [ \"$RANK\" = 1 ]; then sleep 0.3; echo 'rank 1 fails'; exit 3; fi\n"
    "echo \"rank $RANK pid $$\"\n"
    "exec sleep 30\n";

std::string script(const std::string& name) {
  return (test::source_dir() / "scripts" / name).string();
}

// An executable shell script `name` in `dir` with `body`.
std::string stand_in(const fs::path& dir, const std::string& name, const std::string& body) {
  const fs::path path = test::write_text(dir, name, "#!/bin/sh\n" + body);
  fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
  return path.string();
}

// Runs a launcher as one process, in an environment without any launcher variables (so it
// picks its own port and thread count) plus `environment`.
RankLaunch launcher(std::vector<std::string> command,
                    std::map<std::string, std::optional<std::string>> environment = {}) {
  RankLaunch launch;
  launch.world_size = 1;
  launch.command = std::move(command);
  for (const char* name : {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR",
                           "MASTER_PORT", "OMP_NUM_THREADS", "DIST_LAUNCHER", "TRAIN_DS"}) {
    launch.environment[name] = std::nullopt;
  }
  // torchrun looks at its ranks every 5 s by default.
  launch.environment["PET_MONITOR_INTERVAL"] = "0.2";
  for (auto& [name, value] : environment) launch.environment[name] = std::move(value);
  return launch;
}

RankResult run_launcher(const RankLaunch& launch) {
  RankProcesses process(launch);
  return process.wait_all(kLaunchTimeout)[0];
}

// The MASTER_PORT dist_train.sh reports on its first line, or -1.
int reported_port(const std::string& output) {
  std::smatch match;
  if (!std::regex_search(output, match, std::regex("MASTER_PORT=([0-9]+)"))) return -1;
  return std::stoi(match[1]);
}

// What kShowEnvironment prints for `rank` of 2.
std::string environment_line(int rank, int port, const std::string& omp, const std::string& args) {
  const std::string r = std::to_string(rank);
  return "rank=" + r + " world=2 local=" + r +
         " local_world=2 addr=127.0.0.1 port=" + std::to_string(port) + " omp=" + omp +
         " args=" + args + "\n";
}

// max(1, cores / 2), as dist_train.sh computes OMP_NUM_THREADS for 2 ranks.
std::string threads_per_rank_of_two() {
  const test::CommandResult cores = test::run_command("env -u OMP_NUM_THREADS nproc");
  return std::to_string(std::max(1, std::stoi(cores.output) / 2));
}

void expect_contains(const std::string& output, const std::string& text) {
  EXPECT_NE(output.find(text), std::string::npos) << "no `" << text << "` in:\n" << output;
}

TEST(DistTrainScript, SelfLaunchGivesEveryRankTheLauncherEnvironment) {
  const fs::path dir = test::scratch_dir("bin");
  const std::string train_ds = stand_in(dir, "train_ds", kShowEnvironment);
  const RankResult result =
      run_launcher(launcher({script("dist_train.sh"), "cfg.yaml", "2", "--work-dir", "w"},
                            {{"DIST_LAUNCHER", "self"}, {"TRAIN_DS", train_ds}}));
  ASSERT_EQ(result.exit_status, 0) << result.output;
  const int port = reported_port(result.output);
  EXPECT_GT(port, 0) << result.output;
  expect_contains(result.output, "2 ranks via self");
  for (int rank = 0; rank < 2; ++rank) {
    expect_contains(result.output, environment_line(rank, port, threads_per_rank_of_two(),
                                                    "cfg.yaml --launcher pytorch --work-dir w"));
  }
}

// Node 1 of 2 with 2 ranks each: ranks 2 and 3 of 4, node 0's address, the given port.
TEST(DistTrainScript, SelfLaunchOfOneNodeOfSeveralNumbersItsRanksAfterTheEarlierNodes) {
  const fs::path dir = test::scratch_dir("bin");
  const std::string train_ds = stand_in(dir, "train_ds", kShowEnvironment);
  const RankResult result =
      run_launcher(launcher({script("dist_train.sh"), "--nnodes", "2", "--node-rank", "1",
                             "--master-addr", "10.1.2.3", "cfg.yaml", "2"},
                            {{"DIST_LAUNCHER", "self"},
                             {"TRAIN_DS", train_ds},
                             {"MASTER_PORT", "29555"},
                             {"OMP_NUM_THREADS", "1"}}));
  ASSERT_EQ(result.exit_status, 0) << result.output;
  expect_contains(result.output, "2 ranks via self (node 1 of 2), MASTER_ADDR=10.1.2.3");
  for (int local = 0; local < 2; ++local) {
    expect_contains(result.output, "rank=" + std::to_string(2 + local) +
                                       " world=4 local=" + std::to_string(local) +
                                       " local_world=2 addr=10.1.2.3 port=29555 omp=1 args=" +
                                       "cfg.yaml --launcher pytorch\n");
  }
}

TEST(DistTrainScript, KeepsMasterPortAndOmpNumThreadsWhenSet) {
  const fs::path dir = test::scratch_dir("bin");
  const int port = test::free_tcp_port();
  const RankResult result =
      run_launcher(launcher({script("dist_train.sh"), "cfg.yaml", "2"},
                            {{"DIST_LAUNCHER", "self"},
                             {"TRAIN_DS", stand_in(dir, "train_ds", kShowEnvironment)},
                             {"MASTER_PORT", std::to_string(port)},
                             {"OMP_NUM_THREADS", "3"}}));
  ASSERT_EQ(result.exit_status, 0) << result.output;
  for (int rank = 0; rank < 2; ++rank) {
    expect_contains(result.output,
                    environment_line(rank, port, "3", "cfg.yaml --launcher pytorch"));
  }
}

// Runs a launcher of kRankOneFails and expects rank 0 stopped by the time the launcher exits.
RankResult run_failing_ranks(const RankLaunch& launch) {
  RankProcesses process(launch);
  const RankResult result = process.wait_all(kLaunchTimeout)[0];
  std::smatch match;
  if (std::regex_search(result.output, match, std::regex("rank 0 pid ([0-9]+)"))) {
    EXPECT_FALSE(test::process_alive(std::stoi(match[1]))) << "rank 0 still runs";
  } else {
    ADD_FAILURE() << "rank 0 did not start:\n" << result.output;
  }
  return result;
}

TEST(DistTrainScript, SelfLaunchExitsWithTheFailingRanksStatusAndStopsTheOthers) {
  const fs::path dir = test::scratch_dir("bin");
  const RankResult result = run_failing_ranks(launcher(
      {script("dist_train.sh"), "cfg.yaml", "2"},
      {{"DIST_LAUNCHER", "self"}, {"TRAIN_DS", stand_in(dir, "train_ds", kRankOneFails)}}));
  EXPECT_EQ(result.exit_status, 3) << result.output;
  EXPECT_FALSE(result.timed_out);
  EXPECT_LT(result.seconds, 10.0) << "rank 0 was not stopped at once";
  expect_contains(result.output, "rank 1 exited with status 3, stopping the other ranks");
}

class DistTrainScriptSignal : public ::testing::TestWithParam<int> {};

TEST_P(DistTrainScriptSignal, IsForwardedToEveryRank) {
  const int signal = GetParam();
  const std::string name = signal == SIGINT ? "INT" : "TERM";
  const fs::path dir = test::scratch_dir("bin");
  const std::string train_ds =
      stand_in(dir, "train_ds",
               "trap 'echo \"rank $RANK got " + name + "\"; exit 0' " + name +
                   "\necho \"rank $RANK up\"\nwhile :; do sleep 0.1; done\n");
  RankProcesses process(launcher({script("dist_train.sh"), "cfg.yaml", "2"},
                                 {{"DIST_LAUNCHER", "self"}, {"TRAIN_DS", train_ds}}));
  ASSERT_TRUE(process.wait_for_output(0, "rank 0 up", kLaunchTimeout)) << process.output(0);
  ASSERT_TRUE(process.wait_for_output(0, "rank 1 up", kLaunchTimeout)) << process.output(0);
  process.kill(0, signal);
  const RankResult result = process.wait_all(kLaunchTimeout)[0];
  EXPECT_EQ(result.exit_status, 128 + signal) << result.output;
  expect_contains(result.output, "got SIG" + name + ", stopping the ranks");
  expect_contains(result.output, "rank 0 got " + name);
  expect_contains(result.output, "rank 1 got " + name);
}

INSTANTIATE_TEST_SUITE_P(IntAndTerm, DistTrainScriptSignal, ::testing::Values(SIGINT, SIGTERM));

TEST(DistTrainScript, RejectsABadInvocationWithStatusTwo) {
  const fs::path dir = test::scratch_dir("bin");
  const std::string train_ds = stand_in(dir, "train_ds", kShowEnvironment);
  const std::string dist_train = script("dist_train.sh");
  struct Case {
    std::vector<std::string> command;
    std::map<std::string, std::optional<std::string>> environment;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{dist_train, "cfg.yaml"}, {{"TRAIN_DS", train_ds}}, "usage:"},
      {{dist_train, "cfg.yaml", "0"}, {{"TRAIN_DS", train_ds}}, "usage:"},
      {{dist_train, "cfg.yaml", "two"}, {{"TRAIN_DS", train_ds}}, "usage:"},
      {{dist_train, "cfg.yaml", "2"}, {{"TRAIN_DS", (dir / "missing").string()}}, "TRAIN_DS"},
      {{dist_train, "cfg.yaml", "2"},
       {{"TRAIN_DS", train_ds}, {"DIST_LAUNCHER", "mpi"}},
       "DIST_LAUNCHER must be"},
      {{dist_train, "--nnodes", "2", "--node-rank", "2", "cfg.yaml", "1"},
       {{"TRAIN_DS", train_ds}, {"MASTER_PORT", "29500"}},
       "--node-rank 2 must be below --nnodes 2"},
      {{dist_train, "--nnodes", "2", "--node-rank", "1", "cfg.yaml", "1"},
       {{"TRAIN_DS", train_ds}},
       "with --nnodes 2 set MASTER_PORT, the same on every node"},
      {{dist_train, "--nodes", "2", "cfg.yaml", "1"}, {{"TRAIN_DS", train_ds}}, "usage:"},
  };
  for (const Case& c : cases) {
    const RankResult result = run_launcher(launcher(c.command, c.environment));
    EXPECT_EQ(result.exit_status, 2) << result.output;
    expect_contains(result.output, c.message);
  }
}

TEST(DistTrainScript, PrefersATorchrunOnPathThatCanStartAProcess) {
  const fs::path dir = test::scratch_dir("bin");
  const std::string train_ds = stand_in(dir, "train_ds", kShowEnvironment);
  stand_in(dir, "torchrun", "echo \"torchrun $*\"\n");
  const char* path = std::getenv("PATH");
  const RankResult result =
      run_launcher(launcher({script("dist_train.sh"), "cfg.yaml", "2", "--x"},
                            {{"TRAIN_DS", train_ds}, {"PATH", dir.string() + ":" + path}}));
  ASSERT_EQ(result.exit_status, 0) << result.output;
  expect_contains(result.output, "2 ranks via torchrun");
  expect_contains(result.output,
                  "torchrun --nproc_per_node 2 --master_addr 127.0.0.1 "
                  "--master_port " +
                      std::to_string(reported_port(result.output)) + " --no_python " + train_ds +
                      " cfg.yaml --launcher pytorch --x\n");
}

// A torchrun that works (the wrapper under the name torchrun) passes the check of one process
// on a port of its own and then runs the ranks on the run's port.
TEST(DistTrainScript, RunsTheRanksThroughAWorkingTorchrun) {
  OLV2_REQUIRE_TORCHRUN_MODULE();
  const fs::path dir = test::scratch_dir("bin");
  const std::string train_ds = stand_in(dir, "train_ds", kShowEnvironment);
  stand_in(dir, "torchrun", "exec /usr/bin/python3 '" + script("torchrun.py") + "' \"$@\"\n");
  const char* path = std::getenv("PATH");
  const RankResult result =
      run_launcher(launcher({script("dist_train.sh"), "cfg.yaml", "2"},
                            {{"TRAIN_DS", train_ds}, {"PATH", dir.string() + ":" + path}}));
  ASSERT_EQ(result.exit_status, 0) << result.output;
  expect_contains(result.output, "2 ranks via torchrun");
  for (int rank = 0; rank < 2; ++rank) {
    expect_contains(result.output,
                    environment_line(rank, reported_port(result.output), threads_per_rank_of_two(),
                                     "cfg.yaml --launcher pytorch"));
  }
}

// Two nodes of one run started on one host at the same moment, as the GPU check's two-node
// stage starts them: each probes torchrun on a port of its own, so both choose it, and the
// ranks meet in node 0's store on MASTER_PORT. (Probed on MASTER_PORT, one probe lost the port
// to the other, and its node started its ranks without torchrun.)
TEST(DistTrainScript, TwoNodesStartedTogetherBothRunThroughTorchrun) {
  OLV2_REQUIRE_TORCHRUN_MODULE();
  const fs::path dir = test::scratch_dir("bin");
  const std::string train_ds = stand_in(dir, "train_ds", kShowEnvironment);
  stand_in(dir, "torchrun", "exec /usr/bin/python3 '" + script("torchrun.py") + "' \"$@\"\n");
  RankLaunch nodes = launcher(test::shell_command(
      "node=$RANK; unset RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE MASTER_ADDR; exec '" +
      script("dist_train.sh") + "' --nnodes 2 --node-rank $node --master-addr 127.0.0.1 "
      "cfg.yaml 1"));
  nodes.world_size = 2;
  nodes.environment.erase("RANK");
  nodes.environment.erase("WORLD_SIZE");
  nodes.environment.erase("LOCAL_RANK");
  nodes.environment.erase("LOCAL_WORLD_SIZE");
  nodes.environment.erase("MASTER_ADDR");
  nodes.environment.erase("MASTER_PORT");
  nodes.environment["TRAIN_DS"] = train_ds;
  nodes.environment["OMP_NUM_THREADS"] = "1";
  nodes.environment["PATH"] = dir.string() + ":" + std::getenv("PATH");
  RankProcesses processes(nodes);
  const std::vector<RankResult> results = processes.wait_all(kLaunchTimeout);
  for (int node = 0; node < 2; ++node) {
    const std::string& output = results[static_cast<size_t>(node)].output;
    ASSERT_EQ(results[static_cast<size_t>(node)].exit_status, 0) << output;
    expect_contains(output, "1 ranks via torchrun (node " + std::to_string(node) + " of 2)");
    expect_contains(output, "rank=" + std::to_string(node) + " world=2 local=0 local_world=1 "
                            "addr=127.0.0.1 port=" + std::to_string(processes.master_port()));
  }
}

TEST(DistTrainScript, PassesOverATorchrunThatCannotStartAProcess) {
  const fs::path dir = test::scratch_dir("bin");
  const std::string train_ds = stand_in(dir, "train_ds", kShowEnvironment);
  stand_in(dir, "torchrun", "echo 'AttributeError' >&2; exit 1\n");
  const char* path = std::getenv("PATH");
  const RankResult result =
      run_launcher(launcher({script("dist_train.sh"), "cfg.yaml", "2"},
                            {{"TRAIN_DS", train_ds}, {"PATH", dir.string() + ":" + path}}));
  ASSERT_EQ(result.exit_status, 0) << result.output;
  expect_contains(result.output,
                  test::torchrun_module_available() ? "2 ranks via wrapper" : "2 ranks via self");
  expect_contains(result.output,
                  environment_line(1, reported_port(result.output), threads_per_rank_of_two(),
                                   "cfg.yaml --launcher pytorch"));
}

// A train_ds built against LibTorch 2 is started by the .venv's torchrun (PyTorch 2.11), whose
// store its ranks can join, not by Debian's.
TEST(DistTrainScript, ALibTorch2TrainDsRunsUnderTheVenvsTorchrun) {
  const std::string venv_torchrun = (test::source_dir() / ".venv/bin/torchrun").string();
  if (!fs::exists(venv_torchrun)) {
    if (test::running_in_ci()) FAIL() << venv_torchrun << " missing under CI";
    GTEST_SKIP() << venv_torchrun << " missing (scripts/install_deps.sh)";
  }
  const fs::path dir = test::scratch_dir("bin");
  const std::string train_ds = stand_in(
      dir, "train_ds",
      std::string("if [ \"$1\" = --version ]; then echo 'train_ds 0.1.0 (git x), LibTorch 2.11.0 "
                  "(CPU only)'; exit 0; fi\n") +
          kShowEnvironment);
  const RankResult result =
      run_launcher(launcher({script("dist_train.sh"), "cfg.yaml", "2"},
                            {{"TRAIN_DS", train_ds}, {"PATH", "/usr/bin:/bin"}}));
  ASSERT_EQ(result.exit_status, 0) << result.output;
  expect_contains(result.output, "2 ranks via venv");
  for (int rank = 0; rank < 2; ++rank) {
    expect_contains(result.output,
                    environment_line(rank, reported_port(result.output), threads_per_rank_of_two(),
                                     "cfg.yaml --launcher pytorch"));
  }
}

TEST(DistTrainScript, ThroughTheTorchrunWrapperRanksGetTheSameEnvironment) {
  OLV2_REQUIRE_TORCHRUN_MODULE();
  const fs::path dir = test::scratch_dir("bin");
  const RankResult result = run_launcher(launcher(
      {script("dist_train.sh"), "cfg.yaml", "2", "--work-dir", "w"},
      {{"DIST_LAUNCHER", "wrapper"}, {"TRAIN_DS", stand_in(dir, "train_ds", kShowEnvironment)}}));
  ASSERT_EQ(result.exit_status, 0) << result.output;
  expect_contains(result.output, "2 ranks via wrapper");
  for (int rank = 0; rank < 2; ++rank) {
    expect_contains(result.output,
                    environment_line(rank, reported_port(result.output), threads_per_rank_of_two(),
                                     "cfg.yaml --launcher pytorch --work-dir w"));
  }
}

// Debian's Std.from_str returns None for every value on Python 3.11; the wrapper's does not.
TEST(DistTrainTorchrunWrapper, ParsesEveryRedirectAndTeeValue) {
  OLV2_REQUIRE_TORCHRUN_MODULE();
  const test::CommandResult result = test::run_command(
      "/usr/bin/python3 -c '\n"
      "import importlib.util, sys\n"
      "spec = importlib.util.spec_from_file_location(\"wrapper\", sys.argv[1])\n"
      "spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
      "from torch.distributed.elastic.multiprocessing import Std\n"
      "assert [Std.from_str(v) for v in \"0123\"] == [Std.NONE, Std.OUT, Std.ERR, Std.ALL]\n"
      "assert Std.from_str(\"0:3,1:0,12:1\") == {0: Std.ALL, 1: Std.NONE, 12: Std.OUT}\n"
      "for bad in (\"4\", \"1,2\", \"0:4\", \"\"):\n"
      "    try:\n"
      "        Std.from_str(bad)\n"
      "    except ValueError:\n"
      "        continue\n"
      "    raise AssertionError(bad)\n"
      "print(\"ok\")\n' '" +
      script("torchrun.py") + "'");
  EXPECT_EQ(result.exit_status, 0) << result.output;
  EXPECT_EQ(result.output, "ok\n");
}

TEST(DistTrainTorchrunWrapper, StartsTwoRanksWithTheLauncherEnvironment) {
  OLV2_REQUIRE_TORCHRUN_MODULE();
  const fs::path dir = test::scratch_dir("bin");
  const int port = test::free_tcp_port();
  const RankResult result =
      run_launcher(launcher({"/usr/bin/python3", script("torchrun.py"), "--nproc_per_node", "2",
                             "--master_port", std::to_string(port), "--no_python",
                             stand_in(dir, "train_ds", kShowEnvironment), "a", "b c"}));
  ASSERT_EQ(result.exit_status, 0) << result.output;
  // torchrun sets OMP_NUM_THREADS=1 when it is unset.
  for (int rank = 0; rank < 2; ++rank) {
    expect_contains(result.output, environment_line(rank, port, "1", "a b c"));
  }
}

TEST(DistTrainTorchrunWrapper, FailsAndStopsTheOtherRanksWhenARankFails) {
  OLV2_REQUIRE_TORCHRUN_MODULE();
  const fs::path dir = test::scratch_dir("bin");
  const RankResult result =
      run_failing_ranks(launcher({"/usr/bin/python3", script("torchrun.py"), "--nproc_per_node",
                                  "2", "--master_port", std::to_string(test::free_tcp_port()),
                                  "--no_python", stand_in(dir, "train_ds", kRankOneFails)}));
  // torchrun's own status is 1 whatever the rank's; its report names the rank's.
  EXPECT_EQ(result.exit_status, 1) << result.output;
  EXPECT_FALSE(result.timed_out);
  EXPECT_LT(result.seconds, 15.0) << "rank 0 was not stopped at once";
  expect_contains(result.output, "rank      : 1 (local_rank: 1)");
  expect_contains(result.output, "exitcode  : 3");
}

}  // namespace
}  // namespace olv2
