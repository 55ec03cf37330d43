#pragma once
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support/test_paths.h"

namespace olv2::test {

// How to start the ranks of a local multi-process run.
struct RankLaunch {
  std::vector<std::string> command;  // program (a path, or a name looked up in PATH) + arguments
  int world_size = 2;
  // Appended to rank r's command when present, e.g. {"--local_rank=0"}, {"--local_rank=1"}.
  std::vector<std::vector<std::string>> rank_arguments;
  // Applied after the launcher's variables: a value sets one, std::nullopt removes one (e.g.
  // LOCAL_RANK and LOCAL_WORLD_SIZE for the DeepSpeed launcher's form, with LOCAL_SIZE set).
  std::map<std::string, std::optional<std::string>> environment;
  int master_port = 0;               // 0: a free port
  std::filesystem::path output_dir;  // where rank<r>.log go; empty: a fresh scratch_dir()
};

// How one rank ended.
struct RankResult {
  int exit_status = -1;    // the exit status, or -1 when it did not exit normally
  int signal = 0;          // the signal that ended it, or 0
  bool timed_out = false;  // still running when wait_all's time ran out (then SIGKILLed)
  std::string output;      // stdout and stderr together
  double seconds = 0.0;    // from start until it ended (or was killed)
};

// {"/bin/sh", "-c", line}: a shell command line as a RankLaunch::command.
std::vector<std::string> shell_command(const std::string& line);

// The built app `app` (from bin_dir()) followed by `arguments`.
std::vector<std::string> app_command(const std::string& app,
                                     const std::vector<std::string>& arguments);

// A TCP port on 127.0.0.1 that the kernel has just reported free.
int free_tcp_port();

// True while process `pid` exists and is not a zombie (whoever its parent is).
bool process_alive(pid_t pid);

// Starts `world_size` copies of a command as the ranks of one node, with torchrun's environment
// (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR=127.0.0.1, MASTER_PORT) and
// OMP_NUM_THREADS=1; each rank's stdout and stderr go to one file of its own, stdin is
// /dev/null. Each rank leads a session of its own; the destructor SIGKILLs every process left
// in those sessions (the ranks and anything they started), so a test never leaks processes.
class RankProcesses {
 public:
  // Throws std::invalid_argument for an empty command or rank_arguments of the wrong size,
  // std::runtime_error when the program is not found or a rank cannot be started.
  explicit RankProcesses(RankLaunch launch);
  ~RankProcesses();
  RankProcesses(const RankProcesses&) = delete;
  RankProcesses& operator=(const RankProcesses&) = delete;

  int world_size() const { return static_cast<int>(ranks_.size()); }
  int master_port() const { return master_port_; }
  pid_t pid(int rank) const { return rank_at(rank).pid; }
  std::string output(int rank) const;  // what the rank has written so far
  bool running(int rank);              // false once the rank has ended (and been reaped)

  // True as soon as the rank's output contains `text`; false when the rank ends without it or
  // `timeout` passes first.
  bool wait_for_output(int rank, const std::string& text, std::chrono::milliseconds timeout);

  // Sends `signal` to the rank's process (only that process, as a lost rank would see it).
  void kill(int rank, int signal);

  // Waits until every rank has ended or `timeout` has passed; ranks still running then are
  // SIGKILLed with everything they started and reported as timed_out.
  std::vector<RankResult> wait_all(std::chrono::milliseconds timeout);

 private:
  struct Rank {
    pid_t pid = -1;
    std::filesystem::path log;
    std::optional<RankResult> result;  // set once reaped
  };
  void reap(int rank, bool block);
  Rank& rank_at(int rank);
  const Rank& rank_at(int rank) const;

  std::chrono::steady_clock::time_point start_;
  int master_port_ = 0;
  std::vector<Rank> ranks_;
};

// Whether /usr/bin/python3 imports torch.distributed.run (Debian's python3-torch), which
// scripts/torchrun.py runs.
bool torchrun_module_available();

// The torchrun of the PyTorch whose LibTorch this build links, as the start of a shell
// command: its rendezvous store must speak that LibTorch's protocol (a LibTorch 2 rank cannot
// join a torch 1.x store). The .venv's for the default build; Debian's, through
// scripts/torchrun.py, for the Debian build; otherwise `-m torch.distributed.run` of
// OLV2_TORCH_PYTHON (the GPU check's build: its PyTorch's Python), else of python3.
std::string torchrun_command();

// Whether torchrun_command() runs.
bool torchrun_available();

}  // namespace olv2::test

// Skips (outside CI) or fails (under CI) the current test when this build's torchrun cannot
// be run.
#define OLV2_REQUIRE_TORCHRUN()                                               \
  if (!::olv2::test::torchrun_available()) {                                  \
    if (::olv2::test::running_in_ci()) FAIL() << "torchrun missing under CI"; \
    GTEST_SKIP() << ::olv2::test::torchrun_command()                          \
                 << " cannot run (scripts/install_test_deps.sh)";             \
  }

// Skips (outside CI) or fails (under CI) the current test when Debian's torchrun cannot be
// run.
#define OLV2_REQUIRE_TORCHRUN_MODULE()                                                      \
  if (!::olv2::test::torchrun_module_available()) {                                         \
    if (::olv2::test::running_in_ci()) FAIL() << "python3-torch missing under CI";          \
    GTEST_SKIP() << "/usr/bin/python3 cannot import torch.distributed.run (python3-torch)"; \
  }
