// The multi-process test support: ranks started with a launcher's environment, their output
// captured one file per rank, and nothing left running whatever a test does.
#include "support/rank_processes.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>
#include <thread>

namespace olv2 {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using test::RankLaunch;
using test::RankProcesses;
using test::RankResult;
using test::shell_command;

// Bounds every wait of a rank that should end (or print) at once.
constexpr seconds kPrompt{10};

// True once process `pid` is gone or a zombie, false when it still runs after kPrompt.
bool ends_promptly(pid_t pid) {
  const auto deadline = std::chrono::steady_clock::now() + kPrompt;
  while (test::process_alive(pid)) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return true;
}

// True once `rank` has ended, false when it is still running after kPrompt.
bool ends_promptly(RankProcesses& ranks, int rank) {
  const auto deadline = std::chrono::steady_clock::now() + kPrompt;
  while (ranks.running(rank)) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return true;
}

TEST(RankProcesses, EveryRankGetsTheLauncherEnvironment) {
  RankLaunch launch;
  launch.world_size = 3;
  launch.command = shell_command(
      "echo rank=$RANK world=$WORLD_SIZE local=$LOCAL_RANK local_world=$LOCAL_WORLD_SIZE "
      "addr=$MASTER_ADDR port=$MASTER_PORT omp=$OMP_NUM_THREADS");
  RankProcesses ranks(launch);
  const std::vector<RankResult> results = ranks.wait_all(kPrompt);
  const std::string port = std::to_string(ranks.master_port());
  ASSERT_EQ(results.size(), 3u);
  for (int rank = 0; rank < 3; ++rank) {
    SCOPED_TRACE(rank);
    const std::string r = std::to_string(rank);
    EXPECT_EQ(results[rank].exit_status, 0);
    EXPECT_EQ(results[rank].output, "rank=" + r + " world=3 local=" + r +
                                        " local_world=3 addr=127.0.0.1 port=" + port + " omp=1\n");
  }
  EXPECT_GT(ranks.master_port(), 0);
}

TEST(RankProcesses, CapturesEachRanksStdoutAndStderrAndExitStatus) {
  RankLaunch launch;
  launch.command = shell_command("echo out $RANK; echo err $RANK >&2; exit $((RANK + 3))");
  RankProcesses ranks(launch);
  const std::vector<RankResult> results = ranks.wait_all(kPrompt);
  for (int rank = 0; rank < 2; ++rank) {
    SCOPED_TRACE(rank);
    const std::string r = std::to_string(rank);
    EXPECT_EQ(results[rank].exit_status, rank + 3);
    EXPECT_EQ(results[rank].signal, 0);
    EXPECT_FALSE(results[rank].timed_out);
    EXPECT_EQ(results[rank].output, "out " + r + "\nerr " + r + "\n");
    EXPECT_LT(results[rank].seconds, kPrompt.count());
  }
}

// The DeepSpeed launcher's form: --local_rank=R on the command line, LOCAL_SIZE in the
// environment, no LOCAL_RANK or LOCAL_WORLD_SIZE.
TEST(RankProcesses, AddsPerRankArgumentsAndSetsOrRemovesVariables) {
  RankLaunch launch;
  launch.command = shell_command(
      "echo \"args=$* local=${LOCAL_RANK-unset} local_world=${LOCAL_WORLD_SIZE-unset} "
      "local_size=$LOCAL_SIZE\"");
  launch.command.push_back("sh");  // $0 of the script; the rank's arguments follow
  launch.rank_arguments = {{"--local_rank=0"}, {"--local_rank=1", "x y"}};
  launch.environment = {
      {"LOCAL_RANK", std::nullopt}, {"LOCAL_WORLD_SIZE", std::nullopt}, {"LOCAL_SIZE", "2"}};
  RankProcesses ranks(launch);
  const std::vector<RankResult> results = ranks.wait_all(kPrompt);
  EXPECT_EQ(results[0].output, "args=--local_rank=0 local=unset local_world=unset local_size=2\n");
  EXPECT_EQ(results[1].output,
            "args=--local_rank=1 x y local=unset local_world=unset local_size=2\n");
}

TEST(RankProcesses, RunsAProgramFoundInPath) {
  RankLaunch launch;
  launch.world_size = 1;
  launch.command = {"env"};
  RankProcesses ranks(launch);
  const RankResult result = ranks.wait_all(kPrompt)[0];
  EXPECT_EQ(result.exit_status, 0);
  EXPECT_NE(result.output.find("\nRANK=0\n"), std::string::npos) << result.output;
}

TEST(RankProcesses, WaitForOutputSeesARunningRanksOutputAndTimesOut) {
  RankLaunch launch;
  launch.command = shell_command("echo ready $RANK; exec sleep 30");
  RankProcesses ranks(launch);
  EXPECT_TRUE(ranks.wait_for_output(1, "ready 1", kPrompt));
  EXPECT_TRUE(ranks.wait_for_output(0, "ready 0", kPrompt));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(ranks.wait_for_output(0, "never printed", milliseconds(200)));
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, milliseconds(200));
  EXPECT_LT(waited, seconds(5));
  EXPECT_TRUE(ranks.running(0));
}

TEST(RankProcesses, WaitForOutputReturnsOnceTheRankEnded) {
  RankLaunch launch;
  launch.world_size = 1;
  launch.command = shell_command("echo last words");
  RankProcesses ranks(launch);
  EXPECT_TRUE(ranks.wait_for_output(0, "last words", kPrompt));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(ranks.wait_for_output(0, "never printed", seconds(60)));
  EXPECT_LT(std::chrono::steady_clock::now() - start, kPrompt);
  EXPECT_FALSE(ranks.running(0));
}

TEST(RankProcesses, KillSignalsOneRankOnly) {
  RankLaunch launch;
  launch.command = shell_command("echo up; exec sleep 30");
  RankProcesses ranks(launch);
  ASSERT_TRUE(ranks.wait_for_output(1, "up", kPrompt));
  ranks.kill(1, SIGTERM);
  EXPECT_TRUE(ends_promptly(ranks, 1));
  EXPECT_TRUE(ranks.running(0));
  ranks.kill(0, SIGINT);
  const std::vector<RankResult> results = ranks.wait_all(kPrompt);
  EXPECT_EQ(results[0].signal, SIGINT);
  EXPECT_EQ(results[1].signal, SIGTERM);
  for (const RankResult& result : results) {
    EXPECT_EQ(result.exit_status, -1);
    EXPECT_FALSE(result.timed_out);
  }
}

TEST(RankProcesses, WaitAllKillsRanksStillRunningAtItsTimeout) {
  RankLaunch launch;
  launch.command = shell_command("if [ $RANK = 0 ]; then exit 0; fi; exec sleep 30");
  RankProcesses ranks(launch);
  const std::vector<RankResult> results = ranks.wait_all(milliseconds(300));
  EXPECT_EQ(results[0].exit_status, 0);
  EXPECT_FALSE(results[0].timed_out);
  EXPECT_TRUE(results[1].timed_out);
  EXPECT_EQ(results[1].signal, SIGKILL);
  EXPECT_GE(results[1].seconds, 0.3);
  EXPECT_LT(results[1].seconds, kPrompt.count());
}

// What a rank started (here a background sleep) goes with it, and ignoring SIGTERM does not
// keep anything alive.
TEST(RankProcesses, DestructorKillsTheRanksAndWhatTheyStarted) {
  RankLaunch launch;
  launch.command = shell_command("trap '' TERM; sleep 30 & echo child $!; wait");
  std::vector<pid_t> processes;
  {
    RankProcesses ranks(launch);
    for (int rank = 0; rank < 2; ++rank) {
      ASSERT_TRUE(ranks.wait_for_output(rank, "child ", kPrompt));
      processes.push_back(ranks.pid(rank));
      processes.push_back(std::stoi(ranks.output(rank).substr(6)));
    }
  }
  for (pid_t pid : processes) EXPECT_TRUE(ends_promptly(pid)) << pid;
}

TEST(RankProcesses, RejectsAnEmptyCommandAndMismatchedRankArguments) {
  RankLaunch launch;
  EXPECT_THROW(RankProcesses{launch}, std::invalid_argument);
  launch.command = shell_command("true");
  launch.rank_arguments = {{"only rank 0"}};
  EXPECT_THROW(RankProcesses{launch}, std::invalid_argument);
  launch.rank_arguments.clear();
  launch.command = {"no-such-program-anywhere"};
  EXPECT_THROW(RankProcesses{launch}, std::runtime_error);
}

}  // namespace
}  // namespace olv2
