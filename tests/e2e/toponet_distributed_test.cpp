// TopoNet on two data-parallel ranks (Gloo on the CPU, one thread each), launched as a user
// launches it with scripts/dist_train.sh: one frame a rank, one epoch, validation on both.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "support/json_log_records.h"
#include "support/run_command.h"
#include "support/synthetic_dataset.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

TEST(TopoNetDistributed, TwoRanksTrainAndValidateTheDemo) {
  const fs::path workspace = test::scratch_dir("toponet_distributed");
  fs::create_directories(workspace / "data");
  fs::create_directory_symlink(
      test::synthetic_dataset("toponet_distributed", "--frames 4 --val-frames 2 --seed 11"),
      workspace / "data/synthetic");
  const fs::path work_dir = workspace / "work";
  const auto trained = test::run_command(
      "cd '" + workspace.string() + "' && DIST_LAUNCHER=self OMP_NUM_THREADS=1 TRAIN_DS='" +
      (test::bin_dir() / "train_ds").string() + "' bash '" +
      (test::source_dir() / "scripts/dist_train.sh").string() + "' '" +
      (test::source_dir() / "configs/demo_toponet.yaml").string() + "' 2 --work-dir '" +
      work_dir.string() +
      "' --cfg-options runner.max_epochs=1 evaluation.interval=1 log_config.interval=1 "
      "dist_params.timeout_s=60");
  ASSERT_EQ(trained.exit_status, 0) << trained.output;
  EXPECT_NE(trained.output.find("2 ranks via self"), std::string::npos) << trained.output;
  const auto steps = test::json_log_records(work_dir, "train");
  ASSERT_EQ(steps.size(), 1u) << trained.output;  // two frames, one a rank: one step
  const auto validations = test::json_log_records(work_dir, "val");
  ASSERT_EQ(validations.size(), 2u);  // before training and after it
  EXPECT_TRUE(validations.back().contains("OLS"));
}

}  // namespace
}  // namespace olv2
