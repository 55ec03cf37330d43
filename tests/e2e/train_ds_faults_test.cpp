// Training under faults, as a user's machine has them: the process killed (kill -9) at seeded
// moments and at the fault-injection points, a frame that turns bad while the run goes on, a
// full disk during a checkpoint write. After a kill, `--resume-from auto` always finds a loadable
// checkpoint, loses at most one checkpoint interval and ends with the same weights as a run that
// was never interrupted (torch.equal on every tensor).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <random>

#include "olv2/engine/checkpoint/training_checkpoint.h"
#include "olv2/util/pth/pth_file.h"
#include "support/run_command.h"
#include "support/synthetic_dataset.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kCheckpointInterval = 2;  // optimizer steps between iter_<n>.pth

fs::path faults_dataset() {
  return test::synthetic_dataset("faults_e2e",
                                 "--frames 6 --val-frames 2 --image-scale 0.0625 --seed 3");
}

// Two epochs of 4 steps, a checkpoint every 2 steps and every epoch (the last 2 of each series
// kept, so a kill can also strike while an old one is removed), a validation per epoch.
std::string faults_train_args(const fs::path& work_dir, const fs::path& root,
                              const std::string& extra = "") {
  return (test::source_dir() / "configs/tests/tiny.yaml").string() + " --work-dir '" +
         work_dir.string() + "' --seed 5 --cfg-options data_root='" + root.string() +
         "' meta_root='" + root.string() + "' runner.max_epochs=2 evaluation.visualize=0 " +
         "checkpoint_config.iter_interval=" + std::to_string(kCheckpointInterval) +
         " checkpoint_config.max_keep_ckpts=2 " + extra;
}

std::string faults_train_command(const fs::path& work_dir, const std::string& extra = "") {
  return "'" + (test::bin_dir() / "train_ds").string() + "' " +
         faults_train_args(work_dir, faults_dataset(), extra);
}

struct UninterruptedRun {
  NamedTensors weights;  // at the end
  double seconds = 0.0;  // from start to end
};

const UninterruptedRun& uninterrupted_run() {
  static const UninterruptedRun result = [] {
    const fs::path work_dir = test::scratch_dir("uninterrupted");
    const auto started = std::chrono::steady_clock::now();
    const test::CommandResult run = test::run_command(faults_train_command(work_dir));
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
    EXPECT_EQ(run.exit_status, 0) << run.output;
    return UninterruptedRun{read_training_checkpoint(work_dir / "epoch_2.pth").state_dict,
                            took.count()};
  }();
  return result;
}

const NamedTensors& uninterrupted_weights() { return uninterrupted_run().weights; }

void expect_same_weights(const NamedTensors& expected, const NamedTensors& actual) {
  ASSERT_EQ(expected.size(), actual.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(expected[i].first, actual[i].first);
    EXPECT_TRUE(expected[i].second.equal(actual[i].second)) << expected[i].first << " differs";
  }
}

bool killed(const test::CommandResult& result) {
  return result.exit_status == -1 || result.exit_status == 128 + 9;
}

// Every complete file the killed run left loads; latest.pth, when there, is one of them and no
// more than one checkpoint interval behind `reached` optimizer steps.
void expect_loadable_checkpoints(const fs::path& work_dir, int64_t reached) {
  for (const auto& entry : fs::directory_iterator(work_dir)) {
    if (entry.path().extension() != ".pth") continue;
    EXPECT_NO_THROW(read_training_checkpoint(entry.path())) << entry.path();
  }
  if (!fs::exists(work_dir / "latest.pth")) return;
  const TrainingCheckpoint latest = read_training_checkpoint(work_dir / "latest.pth");
  EXPECT_GE(latest.progress.iteration, reached - kCheckpointInterval);
}

void resume_and_compare(const fs::path& work_dir) {
  const test::CommandResult resumed =
      test::run_command(faults_train_command(work_dir, "--resume-from auto"));
  ASSERT_EQ(resumed.exit_status, 0) << resumed.output;
  expect_same_weights(uninterrupted_weights(),
                      read_training_checkpoint(work_dir / "epoch_2.pth").state_dict);
}

struct InjectedFault {
  std::string plan;     // OLV2_FAULT
  int64_t reached = 0;  // optimizer steps finished when it strikes
};

TEST(TrainDsFaults, AKillAtAnInjectionPointResumesToTheSameWeights) {
  uninterrupted_weights();
  // Checkpoint writes: iter_2, iter_4, epoch_1, iter_6, ...; validations after each epoch.
  const std::vector<InjectedFault> faults = {
      {"step:7", 6}, {"checkpoint_write:4", 6}, {"validation:2", 4}, {"step:1", 0}};
  for (const InjectedFault& fault : faults) {
    SCOPED_TRACE(fault.plan);
    const fs::path work_dir =
        test::scratch_dir("fault_" + fault.plan.substr(0, fault.plan.find(':')) +
                          fault.plan.substr(fault.plan.find(':') + 1));
    const test::CommandResult run =
        test::run_command("OLV2_FAULT=" + fault.plan + " " + faults_train_command(work_dir));
    ASSERT_TRUE(killed(run)) << "status " << run.exit_status << "\n" << run.output;
    EXPECT_FALSE(fs::exists(work_dir / "epoch_2.pth"));
    expect_loadable_checkpoints(work_dir, fault.reached);
    resume_and_compare(work_dir);
    test::discard_scratch_when_passing(work_dir);
  }
}

// The moments fall within the first half of the uninterrupted run, so that every kill strikes.
TEST(TrainDsFaults, AKillAtASeededMomentResumesToTheSameWeights) {
  const double run_seconds = uninterrupted_run().seconds;
  std::mt19937 rng(20261201);
  std::uniform_real_distribution<double> seconds(0.5, std::max(1.0, run_seconds / 2));
  for (int trial = 0; trial < 2; ++trial) {
    const double delay = seconds(rng);
    SCOPED_TRACE("kill -9 after " + std::to_string(delay) + " s");
    const fs::path work_dir = test::scratch_dir("seeded_kill_" + std::to_string(trial));
    const test::CommandResult run = test::run_command(
        faults_train_command(work_dir) + " > '" + (work_dir.parent_path() / "killed.log").string() +
        "' 2>&1 & pid=$!; sleep " + std::to_string(delay) + "; kill -9 $pid; wait $pid");
    ASSERT_TRUE(killed(run)) << "the run ended before the kill came: status " << run.exit_status;
    EXPECT_FALSE(fs::exists(work_dir / "epoch_2.pth"));
    if (fs::exists(work_dir)) expect_loadable_checkpoints(work_dir, 0);
    resume_and_compare(work_dir);
    test::discard_scratch_when_passing(work_dir);
  }
}

TEST(TrainDsFaults, AFrameThatTurnsBadStopsTheRunNamingTheFileOrIsSkipped) {
  // A private copy of the data: one of its train images is cut short while the run goes on.
  const fs::path root = test::scratch_dir("bad_frame_data");
  fs::copy(faults_dataset(), root, fs::copy_options::recursive);
  fs::path image;
  for (const auto& entry : fs::recursive_directory_iterator(root / "train")) {
    if (entry.path().extension() == ".jpg") {
      image = entry.path();
      break;
    }
  }
  ASSERT_FALSE(image.empty());
  const std::string cut_when_training =
      " & pid=$!; while kill -0 $pid 2>/dev/null && ! grep -q 'Epoch 0, idx 0' \"$W\"/*.log "
      "2>/dev/null; do sleep 0.1; done; "
      "truncate -s 2000 '" +
      image.string() + "'; wait $pid";
  const auto run = [&](const fs::path& work_dir, const std::string& extra) {
    const std::string command =
        "W='" + work_dir.string() + "'; mkdir -p \"$W\"; '" +
        (test::bin_dir() / "train_ds").string() + "' " +
        faults_train_args(work_dir, root, "runner.max_epochs=4 " + extra + " --no-validate") +
        " > \"$W/console.txt\" 2>&1" + cut_when_training +
        "; status=$?; cat \"$W/console.txt\"; exit $status";
    return test::run_command(command);
  };

  const fs::path stopped = test::scratch_dir("bad_frame_stops");
  fs::copy_file(image, stopped / "original.jpg");
  const test::CommandResult stop = run(stopped, "");
  EXPECT_EQ(stop.exit_status, 2) << stop.output;
  EXPECT_NE(stop.output.find(image.filename().string()), std::string::npos) << stop.output;
  EXPECT_NE(stop.output.find("truncated"), std::string::npos) << stop.output;

  fs::copy_file(stopped / "original.jpg", image, fs::copy_options::overwrite_existing);
  const fs::path skipping = test::scratch_dir("bad_frame_skipped");
  const test::CommandResult skip = run(skipping, "data.skip_bad_frames=true");
  EXPECT_EQ(skip.exit_status, 0) << skip.output;
  EXPECT_NE(skip.output.find("skipping bad frame"), std::string::npos) << skip.output;
  EXPECT_NE(skip.output.find("skipped so far"), std::string::npos) << skip.output;
  EXPECT_TRUE(fs::exists(skipping / "epoch_4.pth"));
}

TEST(TrainDsFaults, AFullDiskDuringACheckpointWriteNamesThePathAndKeepsThePreviousOne) {
  const fs::path work_dir = test::scratch_dir("full_disk");
  // The first run leaves epoch_1.pth; the second may write no file larger than half of it.
  const test::CommandResult first =
      test::run_command(faults_train_command(work_dir, "runner.max_epochs=1 --no-validate"));
  ASSERT_EQ(first.exit_status, 0) << first.output;
  const auto size = fs::file_size(work_dir / "epoch_1.pth");
  // Below the checkpoint's size whether the shell's `ulimit -f` counts 512 or 1024 bytes.
  const std::string limit_blocks = std::to_string(size / 4 / 512);
  const test::CommandResult full = test::run_command(
      "trap '' XFSZ; ulimit -f " + limit_blocks + "; " +
      faults_train_command(work_dir, "runner.max_epochs=2 --no-validate --resume-from auto"));
  EXPECT_NE(full.exit_status, 0) << full.output;
  EXPECT_LT(full.exit_status, 124) << full.output;
  EXPECT_NE(full.output.find(".pth"), std::string::npos) << full.output;
  EXPECT_NE(full.output.find(work_dir.string()), std::string::npos) << full.output;
  // What was there still loads, and latest.pth still points at it.
  EXPECT_NO_THROW(read_training_checkpoint(work_dir / "epoch_1.pth"));
  EXPECT_EQ(read_training_checkpoint(work_dir / "latest.pth").progress.epoch, 1);
}

}  // namespace
}  // namespace olv2
