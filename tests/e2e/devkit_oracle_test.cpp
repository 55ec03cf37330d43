// Our `evaluate` against the official OpenLane-V2 devkit (releases 1.1.0 and 1.0.0 for lane
// centerlines, 2.1.0 for lane segments, installed by scripts/install_test_deps.sh into
// .venv-devkit) and LaneSegNet's own evaluation: random ground truth of both subsets and random
// predictions, every metric equal within 1e-6 (tests/oracle/devkit_oracle.py,
// tests/oracle/devkit_lanesegment_oracle.py).
#include <gtest/gtest.h>

#include <regex>

#include "support/run_command.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

struct OracleVersion {
  const char* metric_version;
  const char* devkit_release;
};

class DevkitOracle : public ::testing::TestWithParam<OracleVersion> {};

TEST_P(DevkitOracle, EveryMetricEqualsTheDevkitsOnRandomCases) {
  const fs::path environment = test::source_dir() / ".venv-devkit";
  const fs::path devkit = environment / (std::string("devkit-") + GetParam().devkit_release);
  if (!fs::exists(environment / "bin" / "python") || !fs::exists(devkit / "openlanev2")) {
    if (test::running_in_ci())
      FAIL() << devkit << " missing under CI (scripts/install_test_deps.sh)";
    GTEST_SKIP() << devkit << " missing (scripts/install_test_deps.sh installs it)";
  }
  const fs::path scratch =
      test::scratch_dir(std::string("devkit_oracle_") + GetParam().metric_version);
  const test::CommandResult run = test::run_command(test::shell_words(
      {(environment / "bin" / "python").string(),
       (test::source_dir() / "tests" / "oracle" / "devkit_oracle.py").string(), devkit.string(),
       GetParam().metric_version, (test::bin_dir() / "evaluate").string(), scratch.string(),
       "--cases", "24"}));
  EXPECT_EQ(run.exit_status, 0) << run.output;
  std::smatch summary;
  ASSERT_TRUE(std::regex_search(run.output, summary,
                                std::regex(R"(compared (\d+) cases \((\d+) with their F-Score\))")))
      << run.output;
  EXPECT_GE(std::stoi(summary[1]), 20) << run.output;
  EXPECT_GE(std::stoi(summary[2]), 20) << run.output;
  EXPECT_NE(run.output.find("subset A"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("subset B"), std::string::npos) << run.output;
}

INSTANTIATE_TEST_SUITE_P(Versions, DevkitOracle,
                         ::testing::Values(OracleVersion{"v1.1", "1.1.0"},
                                           OracleVersion{"v1.0", "1.0.0"}),
                         [](const auto& info) {
                           return std::string(info.param.metric_version[3] == '1' ? "V1_1"
                                                                                  : "V1_0");
                         });

TEST(DevkitLaneSegmentOracle, EveryMetricEqualsTheDevkitsAndLaneSegNetsOnRandomCases) {
  const fs::path environment = test::source_dir() / ".venv-devkit";
  const fs::path devkit = environment / "devkit-2.1.0";
  if (!fs::exists(environment / "bin" / "python") || !fs::exists(devkit / "openlanev2")) {
    if (test::running_in_ci())
      FAIL() << devkit << " missing under CI (scripts/install_test_deps.sh)";
    GTEST_SKIP() << devkit << " missing (scripts/install_test_deps.sh installs it)";
  }
  const fs::path original = test::reference_dir();
  const fs::path lanesegnet_sources =
      original.empty() ? fs::path() : original.parent_path() / "lanesegnet" / "sources.tar.xz";
  if (lanesegnet_sources.empty() || !fs::exists(lanesegnet_sources)) {
    if (test::running_in_ci()) FAIL() << "LaneSegNet's sources missing under CI";
    GTEST_SKIP() << "LaneSegNet's sources (shared/reference/lanesegnet) missing";
  }
  const test::CommandResult run = test::run_command(test::shell_words(
      {(environment / "bin" / "python").string(),
       (test::source_dir() / "tests" / "oracle" / "devkit_lanesegment_oracle.py").string(),
       devkit.string(), lanesegnet_sources.string(), (test::bin_dir() / "evaluate").string(),
       test::scratch_dir("devkit_lanesegment_oracle").string(), "--cases", "16"}));
  EXPECT_EQ(run.exit_status, 0) << run.output;
  EXPECT_NE(run.output.find("compared 16 cases, 0 differ"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("subset A"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("subset B"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace olv2
