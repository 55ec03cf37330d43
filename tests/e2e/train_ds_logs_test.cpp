// What a run logs: the environment block, the original progress line, and the files.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "support/run_command.h"
#include "support/synthetic_dataset.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

// Four train frames, one micro-batch each, three micro-batches per optimizer step: the epoch
// runs two steps (3 + 1 micro-batches).
TEST(TrainDsLogs, DeterministicRunLogsItsEnvironmentAndTheStepsItReallyRuns) {
  const std::string root =
      test::synthetic_dataset("logs_e2e", "--frames 5 --val-frames 1 --image-scale 0.0625 --seed 6")
          .string();
  const fs::path work_dir = test::scratch_dir("logs");
  const auto result = test::run_app(
      "train_ds",
      (test::source_dir() / "configs/tests/tiny.yaml").string() + " --work-dir '" +
          work_dir.string() + "' --no-validate --deterministic --cfg-options data_root='" + root +
          "' meta_root='" + root + "' runner.max_epochs=1 data.gradient_accumulation_steps=3");
  ASSERT_EQ(result.exit_status, 0) << result.output;
  EXPECT_NE(result.output.find("deterministic: true\n"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("memory: peak resident memory of the process (MB)\n"),
            std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("Epoch 0, idx 2 / 4, iter 0 / 2, bs 1 *acc 3: 3, eta "),
            std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("Epoch 0, idx 3 / 4, iter 1 / 2, bs 1 *acc 3: 3, eta "),
            std::string::npos)
      << result.output;

  std::set<std::string> logs;
  std::set<std::string> json_logs;
  for (const auto& entry : fs::directory_iterator(work_dir)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 9 && name.substr(name.size() - 9) == ".log.json") {
      json_logs.insert(name.substr(0, name.size() - 9));
    } else if (name.size() > 4 && name.substr(name.size() - 4) == ".log") {
      logs.insert(name.substr(0, name.size() - 4));
    }
  }
  EXPECT_EQ(logs.size(), 1u);
  EXPECT_EQ(logs, json_logs) << "the .log and .log.json of a run share one timestamp";
}

}  // namespace
}  // namespace olv2
