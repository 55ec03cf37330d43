// --launcher slurm under a real SLURM: a one-node cluster (Debian's slurm-wlm and munge) that the
// test starts in a temporary directory, scripts/slurm_train.sh running two CPU ranks through
// srun, which train as one process does; and a malformed SLURM environment named in train_ds's
// error. Needs root and the SLURM and munge daemons (scripts/install_test_deps.sh): skipped
// with the reason elsewhere, a failure under CI. Whatever happens, every process the cluster
// started is killed and its directory removed.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "support/first_step_comparison.h"
#include "support/frame_pairs.h"
#include "support/rank_processes.h"
#include "support/run_command.h"
#include "support/synthetic_dataset.h"
#include "support/temp_files.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

constexpr const char* kPartition = "olv2";
constexpr const char* kDirPrefix = "/tmp/olv2-slurm-";
constexpr seconds kClusterStartLimit{30};

// Why a one-node SLURM cannot be started here, or "" when it can.
std::string slurm_unavailable() {
  if (::geteuid() != 0) return "the one-node SLURM this test starts needs root";
  for (const char* program : {"munged", "slurmctld", "slurmd", "srun", "sinfo"}) {
    if (test::run_command(std::string("command -v ") + program).exit_status != 0) {
      return std::string("no ") + program +
             " on PATH (Debian's slurm-wlm and munge: scripts/install_test_deps.sh)";
    }
  }
  return "";
}

#define OLV2_REQUIRE_SLURM()                                            \
  if (const std::string why = slurm_unavailable(); !why.empty()) {      \
    if (test::running_in_ci()) FAIL() << why << " (required under CI)"; \
    GTEST_SKIP() << why;                                                \
  }

// The SLURM_* variables of this process: a test run inside a SLURM job must not hand that job's
// to the cluster it starts.
std::vector<std::string> inherited_slurm_variables() {
  std::vector<std::string> names;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text(*entry);
    if (text.rfind("SLURM_", 0) == 0) names.push_back(text.substr(0, text.find('=')));
  }
  return names;
}

// SLURM on this machine alone: munged with a key of its own, slurmctld and slurmd (node
// `localhost`, 2 CPUs, partition `olv2`) with a slurm.conf, state, spool, logs and sockets in a
// fresh directory /tmp/olv2-slurm-<test pid>-XXXXXX (a socket path must stay short) and ports
// picked free. Its settings are those that run in a container without systemd or cgroups:
// processes tracked through /proc (proctrack/linuxproc), no task plugin (task/none), no
// accounting. What a crashed run of this test left (its pid gone) is removed first.
class OneNodeSlurm {
 public:
  OneNodeSlurm() {
    remove_stale();
    std::string pattern = std::string(kDirPrefix) + std::to_string(::getpid()) + "-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp " + pattern);
    dir_ = pattern;
    try {
      start();
    } catch (...) {
      stop();
      throw;
    }
  }
  ~OneNodeSlurm() { stop(); }
  OneNodeSlurm(const OneNodeSlurm&) = delete;
  OneNodeSlurm& operator=(const OneNodeSlurm&) = delete;

  // The start of a shell command that talks to this cluster: its slurm.conf, no SLURM_* variable
  // of an enclosing job.
  std::string environment() const {
    std::string prefix = "env";
    for (const std::string& name : inherited_slurm_variables()) prefix += " -u " + name;
    return prefix + " SLURM_CONF='" + conf().string() + "' ";
  }

  // What the daemons wrote, for a failure's message.
  std::string logs() const {
    std::string text;
    for (const char* name : {"slurmctld.log", "slurmd.log"}) {
      text += std::string("--- ") + name + "\n" + test::read_file(dir_ / name);
    }
    return text;
  }

 private:
  fs::path conf() const { return dir_ / "slurm.conf"; }

  void start() {
    write_munge_key();
    munged_ = daemon({"munged", "--foreground", "--force", "--key-file=" + path("munge.key"),
                      "--socket=" + path("munge.socket"), "--pid-file=" + path("munged.pid"),
                      "--log-file=" + path("munged.log"), "--seed-file=" + path("munged.seed")},
                     "munged");
    wait_until([&] { return fs::exists(dir_ / "munge.socket"); }, "munged's socket");
    write_conf();
    slurmctld_ = daemon({"slurmctld", "-D", "-i"}, "slurmctld");
    slurmd_ = daemon({"slurmd", "-D", "-N", "localhost"}, "slurmd");
    wait_until(
        [&] {
          return test::run_command(environment() + "sinfo -h -o %T").output.find("idle") == 0;
        },
        "the node to be idle in sinfo");
  }

  // Kills the daemons, then what else the cluster started, then removes the directory.
  void stop() {
    slurmd_.reset();
    slurmctld_.reset();
    munged_.reset();
    remove_cluster(dir_);
  }

  // SIGKILLs the processes of the cluster in `dir` (slurmd's step daemons and their tasks leave
  // its session; they are found by the cluster's SLURM_CONF in their environment), then removes
  // `dir`.
  static void remove_cluster(const fs::path& dir) {
    const std::string marker = "SLURM_CONF=" + (dir / "slurm.conf").string();
    for (int round = 0; round < 100; ++round) {
      const std::vector<pid_t> left = processes_with_environment(marker);
      if (left.empty()) break;
      for (const pid_t pid : left) ::kill(pid, SIGKILL);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }

  // The clusters of runs of this test whose process is gone.
  static void remove_stale() {
    const std::string prefix = fs::path(kDirPrefix).filename().string();
    std::error_code error;
    for (const fs::directory_entry& entry : fs::directory_iterator("/tmp", error)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind(prefix, 0) != 0) continue;
      const std::string pid =
          name.substr(prefix.size(), name.find('-', prefix.size()) - prefix.size());
      if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
      if (::kill(static_cast<pid_t>(std::stol(pid)), 0) == 0) continue;
      remove_cluster(entry.path());
    }
  }

  std::string path(const char* name) const { return (dir_ / name).string(); }

  void write_munge_key() {
    std::random_device random;
    std::string key(1024, '\0');
    for (char& byte : key) byte = static_cast<char>(random() & 0xff);
    std::ofstream(dir_ / "munge.key", std::ios::binary) << key;
    fs::permissions(dir_ / "munge.key", fs::perms::owner_read);
  }

  void write_conf() {
    const int controller_port = test::free_tcp_port();
    int node_port = test::free_tcp_port();
    while (node_port == controller_port) node_port = test::free_tcp_port();
    fs::create_directories(dir_ / "state");
    fs::create_directories(dir_ / "spool");
    test::write_text(
        dir_, "slurm.conf",
        "ClusterName=olv2test\n"
        "SlurmctldHost=localhost\n"
        "SlurmctldPort=" +
            std::to_string(controller_port) + "\nSlurmdPort=" + std::to_string(node_port) +
            "\nSlurmUser=root\nSlurmdUser=root\n"
            "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=" +
            path("munge.socket") + "\nStateSaveLocation=" + path("state") +
            "\nSlurmdSpoolDir=" + path("spool") + "\nSlurmctldPidFile=" + path("slurmctld.pid") +
            "\nSlurmdPidFile=" + path("slurmd.pid") + "\nSlurmctldLogFile=" +
            path("slurmctld.log") + "\nSlurmdLogFile=" + path("slurmd.log") +
            "\nProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
            "JobAcctGatherType=jobacct_gather/none\n"
            "AccountingStorageType=accounting_storage/none\n"
            "SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n"
            "MpiDefault=none\nSwitchType=switch/none\nMailProg=/bin/true\nReturnToService=2\n"
            "NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN\n"
            "PartitionName=" +
            kPartition + " Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n");
  }

  // `command` started in a session of its own (killed with everything in it when the result is
  // destroyed), without this process's SLURM_* and launcher variables.
  std::unique_ptr<test::RankProcesses> daemon(const std::vector<std::string>& command,
                                              const std::string& name) const {
    test::RankLaunch launch;
    launch.command = command;
    launch.world_size = 1;
    for (const std::string& variable : inherited_slurm_variables()) {
      launch.environment[variable] = std::nullopt;
    }
    for (const char* variable :
         {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"}) {
      launch.environment[variable] = std::nullopt;
    }
    launch.environment["SLURM_CONF"] = conf().string();
    launch.output_dir = dir_ / ("output." + name);
    fs::create_directories(launch.output_dir);
    return std::make_unique<test::RankProcesses>(launch);
  }

  // Polls `ready` until it holds; throws, naming `what` and with the daemons' output, after
  // kClusterStartLimit.
  template <typename Ready>
  void wait_until(Ready ready, const std::string& what) const {
    const auto deadline = std::chrono::steady_clock::now() + kClusterStartLimit;
    while (!ready()) {
      if (std::chrono::steady_clock::now() > deadline) {
        std::string outputs;
        for (const auto* daemon : {&munged_, &slurmctld_, &slurmd_}) {
          if (*daemon) outputs += (*daemon)->output(0);
        }
        throw std::runtime_error("one-node SLURM: no " + what + " within " +
                                 std::to_string(kClusterStartLimit.count()) + " s\n" + outputs +
                                 logs());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  // The processes whose environment holds the line `variable` (NAME=value).
  static std::vector<pid_t> processes_with_environment(const std::string& variable) {
    std::vector<pid_t> found;
    std::error_code error;
    for (const fs::directory_entry& entry : fs::directory_iterator("/proc", error)) {
      const std::string name = entry.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      const std::string environment = test::read_file(entry.path() / "environ");
      size_t start = 0;
      while (start < environment.size()) {
        const size_t end = environment.find('\0', start);
        if (environment.compare(start, end - start, variable) == 0) {
          found.push_back(static_cast<pid_t>(std::stol(name)));
          break;
        }
        if (end == std::string::npos) break;
        start = end + 1;
      }
    }
    return found;
  }

  fs::path dir_;
  std::unique_ptr<test::RankProcesses> munged_, slurmctld_, slurmd_;
};

fs::path slurm_dataset() {
  return test::synthetic_dataset("slurm",
                                 "--frames 24 --val-frames 3 --image-scale 0.0625 --seed 11");
}

// tiny.yaml for one epoch over the two frames of `meta_root`'s pair collection, one thread on
// the CPU, BatchNorm on running statistics and no dropout (batching is then the only
// difference between the runs compared), without validation.
std::vector<std::string> pair_arguments(const fs::path& meta_root,
                                        const std::string& samples_per_gpu) {
  return {"--threads",
          "1",
          "--device",
          "cpu",
          "--no-validate",
          "--cfg-options",
          "data_root=" + slurm_dataset().string(),
          "meta_root=" + meta_root.string(),
          "data.val.meta_root=" + slurm_dataset().string(),
          "data.train.collection=pair_train",
          "data.samples_per_gpu=" + samples_per_gpu,
          "runner.max_epochs=1",
          "dist_params.timeout_s=20",
          "model.img_backbone.norm_eval=true",
          "model.lc_head.dropout=0.0",
          "model.lc_head.ffn_dropout=0.0",
          "model.te_head.dropout=0.0",
          "model.te_head.ffn_dropout=0.0"};
}

std::string tiny_config() { return (test::source_dir() / "configs/tests/tiny.yaml").string(); }

// The environment of both runs: no GPU, one OpenMP thread, MKL's CPU-independent code path (see
// train_ds_distributed_test.cpp), no torchrun variable.
const char* const kCpuEnvironment =
    "env -u RANK -u WORLD_SIZE -u LOCAL_RANK -u LOCAL_WORLD_SIZE -u MASTER_ADDR "
    "CUDA_VISIBLE_DEVICES=-1 OMP_NUM_THREADS=1 MKL_CBWR=COMPATIBLE ";

// scripts/slurm_train.sh with GPUS=2 GPUS_PER_NODE=0 on the one-node cluster: srun starts two
// CPU ranks of train_ds --launcher slurm, which read their places from srun's variables (the
// master from SLURM_NODELIST) and train 2 ranks x 1 frame as one process trains the 2 frames
// in one batch: the same losses and gradients (support/first_step_comparison.h).
TEST(SlurmLaunch, SlurmTrainShRunsTwoRanksThatTrainAsOneProcess) {
  OLV2_REQUIRE_SLURM();
  const fs::path meta_root = test::equal_count_meta_root(slurm_dataset(), 2);
  const fs::path single = test::scratch_dir("one_process");
  std::vector<std::string> one_process = {tiny_config(), "--work-dir", single.string()};
  for (const std::string& argument : pair_arguments(meta_root, "2")) {
    one_process.push_back(argument);
  }
  const test::CommandResult one =
      test::run_command(std::string(kCpuEnvironment) + "timeout 120 " +
                        (test::bin_dir() / "train_ds").string() + test::shell_words(one_process));
  ASSERT_EQ(one.exit_status, 0) << one.output;

  OneNodeSlurm cluster;
  const fs::path multi = test::scratch_dir("srun_ranks");
  const test::CommandResult ranks = test::run_command(
      cluster.environment() + kCpuEnvironment + "GPUS=2 GPUS_PER_NODE=0 CPUS_PER_TASK=1 " +
      "MASTER_PORT=" + std::to_string(test::free_tcp_port()) + " TRAIN_DS='" +
      (test::bin_dir() / "train_ds").string() + "' timeout 120 bash '" +
      (test::source_dir() / "scripts/slurm_train.sh").string() + "' " + kPartition +
      " olv2-slurm-test" + test::shell_words({tiny_config(), multi.string()}) +
      test::shell_words(pair_arguments(meta_root, "1")));
  ASSERT_EQ(ranks.exit_status, 0) << ranks.output << cluster.logs();
  EXPECT_NE(ranks.output.find("srun -p olv2 --job-name=olv2-slurm-test --ntasks=2 "
                              "--cpus-per-task=1 --kill-on-bad-exit=1 "),
            std::string::npos)
      << ranks.output;
  EXPECT_NE(ranks.output.find("world size: 2\nrank: 0\nbackend: gloo\n"), std::string::npos)
      << ranks.output;
  EXPECT_NE(ranks.output.find("train: 2 frames, 1 micro-batches of 1 per epoch and rank, 1 "
                              "optimizer steps (accumulation 1, 2 ranks)"),
            std::string::npos)
      << ranks.output;
  test::expect_same_first_step(single, multi,
                               {"loss", "grad_norm", "lc_loss_cls", "lc_loss_bbox", "te_loss_cls",
                                "topology_lclc_loss_cls"});
}

// Outside srun, or with a variable srun would never write, train_ds stops before any work
// with exit status 2 and a line naming the variable and what was expected.
TEST(SlurmLaunch, AMalformedOrMissingSlurmVariableIsNamed) {
  const std::string train_ds = (test::bin_dir() / "train_ds").string() + " '" + tiny_config() +
                               "' --launcher slurm --work-dir '" +
                               test::scratch_dir("bad_slurm").string() + "'";
  const test::CommandResult bad_list = test::run_command(
      "env -u MASTER_ADDR SLURM_PROCID=0 SLURM_NTASKS=2 SLURM_LOCALID=0 SLURM_NODEID=0 "
      "SLURM_TASKS_PER_NODE=2 SLURM_NODELIST='node[3-' " +
      train_ds);
  EXPECT_EQ(bad_list.exit_status, 2) << bad_list.output;
  EXPECT_NE(bad_list.output.find("environment variable SLURM_NODELIST=node[3-: a [ without its ] "
                                 "(expected SLURM's host list, such as node[01-03,07],gpu-a1)"),
            std::string::npos)
      << bad_list.output;

  std::string without_slurm = "env";
  for (const std::string& name : inherited_slurm_variables()) without_slurm += " -u " + name;
  const test::CommandResult outside_srun = test::run_command(without_slurm + " " + train_ds);
  EXPECT_EQ(outside_srun.exit_status, 2) << outside_srun.output;
  EXPECT_NE(outside_srun.output.find("--launcher slurm needs SLURM_NTASKS in the environment "
                                     "(srun sets it"),
            std::string::npos)
      << outside_srun.output;
}

}  // namespace
}  // namespace olv2
