// probe_model's gradient record against the original's: two ranks of one frame each (the
// engine's process group and gradient all-reduce, as train_ds runs them) against the original
// under mmcv's MMDistributedDataParallel, and the report of a record that differs.
#include <gtest/gtest.h>

#include <chrono>

#include "olv2/models/gradient_record.h"
#include "olv2/util/pth/pth_file.h"
#include "olv2/util/state_dict.h"
#include "support/baseline_gradient_records.h"
#include "support/rank_processes.h"
#include "support/run_command.h"
#include "support/temp_files.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

// The records for this CPU's kernels.
const test::BaselineGradientRecords& records() {
  static const test::BaselineGradientRecords chosen = test::baseline_gradient_records();
  return chosen;
}

std::vector<std::string> probe_arguments(const fs::path& state_dict, const fs::path& out,
                                         const fs::path& reference) {
  return {(test::source_dir() / "configs/fixtures/baseline.yaml").string(),
          "--state-dict",
          state_dict.string(),
          "--input",
          (test::source_dir() / "tests/data/gradients/two_frames.pt").string(),
          "--mode",
          "grads",
          "--out",
          out.string(),
          "--compare-with",
          reference.string(),
          "--tolerance",
          records().tolerance_text()};
}

// In the original, a rank's classification losses divide by its own positives and the box
// losses by the mean over the ranks: two ranks of one frame are not one batch of two, and the
// record must be the two-rank one.
TEST(DistributedGradients, TwoRanksOfOneFrameEqualTheOriginalsTwoRanks) {
  OLV2_REQUIRE_FIXTURE(state_dict, "baseline_state_dict.pt");
  const fs::path out = test::scratch_dir("two_rank_gradients") / "gradients.pt";
  std::vector<std::string> args =
      probe_arguments(state_dict, out, records().dir / "original_two_ranks.pt");
  args.insert(args.end(), {"--launcher", "pytorch"});
  test::RankLaunch launch;
  launch.command = test::app_command("probe_model", args);
  test::RankProcesses ranks(launch);
  const std::vector<test::RankResult> results = ranks.wait_all(std::chrono::seconds(300));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[1].exit_status, 0) << results[1].output;
  ASSERT_EQ(results[0].exit_status, 0) << results[0].output;
  EXPECT_NE(results[0].output.find("0 of 166 gradients beyond " + records().tolerance_text() +
                                   " relative"),
            std::string::npos)
      << results[0].output;

  const auto against_one_batch = compare_gradient_records(
      tensors_of(read_pth(out)), tensors_of(read_pth(records().dir / "original_batch_two.pt")));
  EXPECT_GT(against_one_batch.front().relative, 1e-3)
      << format_gradient_differences(against_one_batch);
}

TEST(DistributedGradients, ARecordBeyondTheToleranceExitsOneListingTheWorstFirst) {
  OLV2_REQUIRE_FIXTURE(state_dict, "baseline_state_dict.pt");
  const fs::path out = test::scratch_dir("batch_gradients") / "gradients.pt";
  std::string line;
  for (const std::string& arg :
       probe_arguments(state_dict, out, records().dir / "original_two_ranks.pt"))
    line += " '" + arg + "'";
  const test::CommandResult result = test::run_app("probe_model", line);
  EXPECT_EQ(result.exit_status, 1) << result.output;
  const size_t header = result.output.find("parameter");
  ASSERT_NE(header, std::string::npos) << result.output;
  EXPECT_NE(result.output.find("gradients beyond " + records().tolerance_text() + " relative"),
            std::string::npos)
      << result.output;
  // The written record is whole: every parameter, at full size.
  const NamedTensors record = tensors_of(read_pth(out));
  EXPECT_EQ(record.size(), 166u);
  for (const auto& [name, grad] : record) EXPECT_EQ(name.find('@'), std::string::npos) << name;
}

}  // namespace
}  // namespace olv2
