#pragma once
// A lane-segment submission scored by the devkit 2.x's own collect and evaluation
// (tests/oracle/devkit_score_submission.py), and test_ds's own score of the same split, for the
// end-to-end tests that compare them.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "support/run_command.h"

namespace olv2::test {

// The devkit 2.1.0 that scripts/install_test_deps.sh installs beside the checkout's sources.
std::filesystem::path devkit_2x_dir();

// test_ds on `config` and `checkpoint` in `workspace` (where the config's data paths are
// relative), with `eval_arguments` after --eval, the submission written to
// `work_dir`/submission.pkl, one thread.
CommandResult test_ds_with_submission(const std::filesystem::path& workspace,
                                      const std::filesystem::path& config,
                                      const std::string& checkpoint,
                                      const std::string& eval_arguments,
                                      const std::filesystem::path& work_dir);

// Expects test_ds's run `tested` (test_ds_with_submission into `work_dir`) to have passed and
// scored the UniScore, and the devkit 2.x's own collect and evaluation of its submission against
// the val split of `data_root`'s data_dict_synthetic.json to give the same DET_l, DET_a, DET_t,
// TOP_ll, TOP_lt and UniScore within 1e-6; `devkit_scores` receives the devkit's numbers (null
// when it did not run). Skips (outside CI) or fails (under CI) without the devkit installed.
void expect_submission_scored_as_test_ds(const CommandResult& tested,
                                         const std::filesystem::path& data_root,
                                         const std::filesystem::path& work_dir,
                                         nlohmann::json* devkit_scores = nullptr);

}  // namespace olv2::test
