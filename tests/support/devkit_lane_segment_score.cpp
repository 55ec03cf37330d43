#include "support/devkit_lane_segment_score.h"

#include <gtest/gtest.h>

#include "support/temp_files.h"
#include "support/test_paths.h"

namespace olv2::test {

std::filesystem::path devkit_2x_dir() { return source_dir() / ".venv-devkit" / "devkit-2.1.0"; }

CommandResult test_ds_with_submission(const std::filesystem::path& workspace,
                                      const std::filesystem::path& config,
                                      const std::string& checkpoint,
                                      const std::string& eval_arguments,
                                      const std::filesystem::path& work_dir) {
  return run_command("cd '" + workspace.string() + "' && '" + (bin_dir() / "test_ds").string() +
                     "' '" + config.string() + "' " + checkpoint + " --eval " + eval_arguments +
                     " --out '" + (work_dir / "submission.pkl").string() + "' --work-dir '" +
                     work_dir.string() + "' --threads 1");
}

void expect_submission_scored_as_test_ds(const CommandResult& tested,
                                         const std::filesystem::path& data_root,
                                         const std::filesystem::path& work_dir,
                                         nlohmann::json* devkit_scores) {
  if (devkit_scores != nullptr) *devkit_scores = nullptr;
  ASSERT_EQ(tested.exit_status, 0) << tested.output;
  EXPECT_NE(tested.output.find("OpenLane-V2 UniScore (devkit 2.x lane segments) over 2 frames"),
            std::string::npos)
      << tested.output;
  nlohmann::json ours;
  for (const auto& entry : std::filesystem::directory_iterator(work_dir)) {
    if (entry.path().filename().string().rfind("eval_", 0) == 0) {
      ours = nlohmann::json::parse(read_file(entry.path())).at("metrics");
    }
  }
  ASSERT_FALSE(ours.is_null()) << "no eval_*.json in " << work_dir << "\n" << tested.output;
  EXPECT_EQ(ours.at("metric_set"), "OpenLane-V2 UniScore");

  if (!std::filesystem::exists(devkit_2x_dir() / "openlanev2")) {
    if (running_in_ci())
      FAIL() << devkit_2x_dir() << " missing under CI (scripts/install_test_deps.sh)";
    GTEST_SKIP() << devkit_2x_dir() << " missing (scripts/install_test_deps.sh installs it)";
  }
  const CommandResult scored = run_command(
      shell_words({(source_dir() / ".venv-devkit" / "bin" / "python").string(),
                   (source_dir() / "tests/oracle/devkit_score_submission.py").string(),
                   devkit_2x_dir().string(), data_root.string(),
                   (data_root / "data_dict_synthetic.json").string(), "val",
                   (work_dir / "submission.pkl").string(), (work_dir / "devkit").string()}));
  ASSERT_EQ(scored.exit_status, 0) << scored.output;
  const nlohmann::json devkits =
      nlohmann::json::parse(scored.output.substr(scored.output.rfind('{')));
  for (const char* metric : {"DET_l", "DET_a", "DET_t", "TOP_ll", "TOP_lt", "UniScore"}) {
    EXPECT_NEAR(ours.at(metric).get<double>(), devkits.at(metric).get<double>(), 1e-6) << metric;
  }
  if (devkit_scores != nullptr) *devkit_scores = devkits;
}

}  // namespace olv2::test
