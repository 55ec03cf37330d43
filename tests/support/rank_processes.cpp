#include "support/rank_processes.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "support/run_command.h"
#include "support/temp_files.h"
#include "support/test_paths.h"

extern char** environ;

namespace olv2::test {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// How often the waits look at the ranks' state and output.
constexpr std::chrono::milliseconds kPollInterval{10};

// Set for each rank, never inherited (LOCAL_SIZE is the DeepSpeed launcher's LOCAL_WORLD_SIZE).
const char* const kLauncherVariables[] = {
    "RANK",       "WORLD_SIZE",  "LOCAL_RANK",  "LOCAL_WORLD_SIZE",
    "LOCAL_SIZE", "MASTER_ADDR", "MASTER_PORT", "OMP_NUM_THREADS"};

// `program` itself when it names a path, else the first executable of that name in PATH.
std::string resolve_program(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  throw std::runtime_error("RankProcesses: " + program + " not found in PATH");
}

// This process's environment without the launcher's variables.
std::map<std::string, std::string> inherited_environment() {
  std::map<std::string, std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const size_t equals = text.find('=');
    if (equals != std::string::npos) env[text.substr(0, equals)] = text.substr(equals + 1);
  }
  for (const char* name : kLauncherVariables) env.erase(name);
  return env;
}

// Rank `rank`'s environment lines: `inherited`, the launcher's variables, then `extra`.
std::vector<std::string> rank_environment(
    std::map<std::string, std::string> env,
    const std::map<std::string, std::optional<std::string>>& extra, int rank, int world_size,
    int port) {
  env["RANK"] = std::to_string(rank);
  env["WORLD_SIZE"] = std::to_string(world_size);
  env["LOCAL_RANK"] = std::to_string(rank);
  env["LOCAL_WORLD_SIZE"] = std::to_string(world_size);
  env["MASTER_ADDR"] = "127.0.0.1";
  env["MASTER_PORT"] = std::to_string(port);
  env["OMP_NUM_THREADS"] = "1";
  for (const auto& [name, value] : extra) {
    if (value) {
      env[name] = *value;
    } else {
      env.erase(name);
    }
  }
  std::vector<std::string> lines;
  for (const auto& [name, value] : env) lines.push_back(name + "=" + value);
  return lines;
}

struct ProcessStat {
  char state = 0;       // 'R', 'S', ..., 'Z' for a zombie; 0 when the process is gone
  long session_id = 0;  // the POSIX session (setsid) the process belongs to
};

ProcessStat process_stat(const fs::path& proc_dir) {
  const std::string stat = read_file(proc_dir / "stat");
  // /proc/<pid>/stat: pid (comm) state ppid pgrp sid ...; comm may hold spaces and parentheses.
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return {};
  std::istringstream fields(stat.substr(paren + 1));
  ProcessStat result;
  long ppid = 0, pgrp = 0;
  if (!(fields >> result.state >> ppid >> pgrp >> result.session_id)) return {};
  return result;
}

// The processes of POSIX session `sid` that are not zombies.
std::vector<pid_t> session_members(pid_t sid) {
  std::vector<pid_t> members;
  for (const fs::directory_entry& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const ProcessStat stat = process_stat(entry.path());
    if (stat.state != 0 && stat.state != 'Z' && stat.session_id == sid) {
      members.push_back(static_cast<pid_t>(std::stol(name)));
    }
  }
  return members;
}

// SIGKILLs every process of session `sid` until none is left (members may fork meanwhile).
void kill_session(pid_t sid) {
  for (int round = 0; round < 100; ++round) {
    const std::vector<pid_t> members = session_members(sid);
    if (members.empty()) return;
    for (pid_t pid : members) ::kill(pid, SIGKILL);
    std::this_thread::sleep_for(kPollInterval);
  }
}

// Runs in the forked child: only async-signal-safe calls until execve.
[[noreturn]] void exec_rank(int devnull, int log, const char* program, char* const* argv,
                            char* const* envp, const std::string& exec_error) {
  setsid();
  dup2(devnull, STDIN_FILENO);
  dup2(log, STDOUT_FILENO);
  dup2(log, STDERR_FILENO);
  // A test runner may have ignored or blocked signals; a rank starts as a launcher's would.
  struct sigaction defaults {};
  defaults.sa_handler = SIG_DFL;
  for (int signal = 1; signal < NSIG; ++signal) sigaction(signal, &defaults, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execve(program, argv, envp);
  const ssize_t ignored = write(STDERR_FILENO, exec_error.data(), exec_error.size());
  (void)ignored;
  _exit(127);
}

}  // namespace

std::vector<std::string> shell_command(const std::string& line) { return {"/bin/sh", "-c", line}; }

std::vector<std::string> app_command(const std::string& app,
                                     const std::vector<std::string>& arguments) {
  std::vector<std::string> command{(bin_dir() / app).string()};
  command.insert(command.end(), arguments.begin(), arguments.end());
  return command;
}

int free_tcp_port() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
                  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  const int error = errno;
  close(fd);
  if (!ok) throw std::runtime_error(std::string("bind 127.0.0.1:0: ") + std::strerror(error));
  return ntohs(address.sin_port);
}

bool process_alive(pid_t pid) {
  const char state = process_stat(fs::path("/proc") / std::to_string(pid)).state;
  return state != 0 && state != 'Z';
}

RankProcesses::RankProcesses(RankLaunch launch) : start_(Clock::now()) {
  if (launch.command.empty()) throw std::invalid_argument("RankProcesses: empty command");
  if (launch.world_size < 1) throw std::invalid_argument("RankProcesses: world_size < 1");
  if (!launch.rank_arguments.empty() &&
      launch.rank_arguments.size() != static_cast<size_t>(launch.world_size)) {
    throw std::invalid_argument("RankProcesses: rank_arguments needs one entry per rank");
  }
  master_port_ = launch.master_port != 0 ? launch.master_port : free_tcp_port();
  fs::path output_dir = launch.output_dir;
  if (output_dir.empty()) {
    static std::atomic<int> launches{0};
    output_dir = scratch_dir("ranks" + std::to_string(launches++));
  }
  fs::create_directories(output_dir);
  const std::string program = resolve_program(launch.command.front());
  const std::string exec_error = "RankProcesses: cannot execute " + program + "\n";
  const std::map<std::string, std::string> inherited = inherited_environment();

  const int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  for (int rank = 0; rank < launch.world_size; ++rank) {
    std::vector<std::string> args = launch.command;
    if (!launch.rank_arguments.empty()) {
      const auto& extra = launch.rank_arguments[static_cast<size_t>(rank)];
      args.insert(args.end(), extra.begin(), extra.end());
    }
    std::vector<std::string> env_lines =
        rank_environment(inherited, launch.environment, rank, launch.world_size, master_port_);

    std::vector<char*> argv, envp;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    for (std::string& line : env_lines) envp.push_back(line.data());
    envp.push_back(nullptr);

    Rank entry;
    entry.log = output_dir / ("rank" + std::to_string(rank) + ".log");
    const int log = open(entry.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const pid_t pid = log >= 0 && devnull >= 0 ? fork() : -1;
    if (pid == 0) exec_rank(devnull, log, program.c_str(), argv.data(), envp.data(), exec_error);
    const int error = errno;
    if (log >= 0) close(log);
    if (pid < 0) {
      if (devnull >= 0) close(devnull);
      for (size_t started = 0; started < ranks_.size(); ++started) {
        kill_session(ranks_[started].pid);
        reap(static_cast<int>(started), true);
      }
      throw std::runtime_error("RankProcesses: cannot start rank " + std::to_string(rank) + ": " +
                               std::strerror(error));
    }
    entry.pid = pid;
    ranks_.push_back(std::move(entry));
  }
  close(devnull);
}

RankProcesses::~RankProcesses() {
  for (size_t rank = 0; rank < ranks_.size(); ++rank) {
    kill_session(ranks_[rank].pid);
    reap(static_cast<int>(rank), true);
  }
}

RankProcesses::Rank& RankProcesses::rank_at(int rank) {
  if (rank < 0 || rank >= world_size()) throw std::out_of_range("RankProcesses: no such rank");
  return ranks_[static_cast<size_t>(rank)];
}

const RankProcesses::Rank& RankProcesses::rank_at(int rank) const {
  if (rank < 0 || rank >= world_size()) throw std::out_of_range("RankProcesses: no such rank");
  return ranks_[static_cast<size_t>(rank)];
}

void RankProcesses::reap(int rank, bool block) {
  Rank& entry = rank_at(rank);
  if (entry.result) return;
  int status = 0;
  pid_t done = 0;
  do {
    done = waitpid(entry.pid, &status, block ? 0 : WNOHANG);
  } while (done < 0 && errno == EINTR);
  if (done != entry.pid) return;
  RankResult result;
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  result.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  entry.result = result;
}

std::string RankProcesses::output(int rank) const { return read_file(rank_at(rank).log); }

bool RankProcesses::running(int rank) {
  reap(rank, false);
  return !rank_at(rank).result;
}

bool RankProcesses::wait_for_output(int rank, const std::string& text,
                                    std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  while (true) {
    // Checked before the output so that what a rank wrote just before it ended still counts.
    const bool ended = !running(rank);
    if (output(rank).find(text) != std::string::npos) return true;
    if (ended || Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(kPollInterval);
  }
}

void RankProcesses::kill(int rank, int signal) {
  if (running(rank)) ::kill(rank_at(rank).pid, signal);
}

std::vector<RankResult> RankProcesses::wait_all(std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  const auto any_running = [this] {
    bool any = false;
    for (int rank = 0; rank < world_size(); ++rank) any = running(rank) || any;
    return any;
  };
  while (any_running() && Clock::now() < deadline) std::this_thread::sleep_for(kPollInterval);

  std::vector<RankResult> results;
  for (int rank = 0; rank < world_size(); ++rank) {
    Rank& entry = rank_at(rank);
    bool timed_out = false;
    if (running(rank)) {
      timed_out = true;
      kill_session(entry.pid);
      reap(rank, true);
    }
    RankResult result = *entry.result;
    result.timed_out = timed_out;
    result.output = output(rank);
    results.push_back(result);
  }
  return results;
}

bool torchrun_module_available() {
  static const bool available =
      run_command("/usr/bin/python3 -c 'import torch.distributed.run'").exit_status == 0;
  return available;
}

std::string torchrun_command() {
  const std::string built = OLV2_BUILT_LIBTORCH;
  if (built == "venv") return "'" + (source_dir() / ".venv/bin/torchrun").string() + "'";
  if (built == "debian") {
    return "/usr/bin/python3 '" + (source_dir() / "scripts/torchrun.py").string() + "'";
  }
  const std::string python = OLV2_TORCH_PYTHON;
  return (python.empty() ? std::string("python3") : "'" + python + "'") +
         " -m torch.distributed.run";
}

bool torchrun_available() {
  static const bool available = run_command(torchrun_command() + " --help").exit_status == 0;
  return available;
}

}  // namespace olv2::test
