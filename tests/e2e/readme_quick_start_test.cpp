// The README's "Quick start: OpenLane-V2", every command of it as the README writes it, run in
// a folder laid out as a user's: synthetic frames in the real tree
// (OpenLane-V2/data/OpenLane-V2/data_dict_subset_A.json, train/, val/, test/), the repository's
// configs/ and scripts/, the programs in build/bin/. What no test machine has is replaced, and
// only that: the build (step 1) is the suite's, the pretrained backbone (step 4) is left out
// (`model.img_backbone.init_cfg=null`), 8 GPUs are 2 CPU ranks, and a run is one epoch of the
// first 2 frames. The submission it ends with passes the official devkit's `check_results`.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/json_log_records.h"
#include "support/python_numpy.h"
#include "support/run_command.h"
#include "support/synthetic_dataset.h"
#include "support/temp_files.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

// The shell commands of the README section `title`: its ```sh blocks, continuation lines
// joined, trailing comments dropped.
std::vector<std::string> readme_commands(const std::string& title) {
  const std::string readme = test::read_file(test::source_dir() / "README.md");
  const size_t start = readme.find("\n## " + title + "\n");
  EXPECT_NE(start, std::string::npos) << "README.md has no section `" << title << "`";
  if (start == std::string::npos) return {};
  const size_t end = readme.find("\n## ", start + 1);
  std::istringstream section(readme.substr(start, end - start));
  std::vector<std::string> commands;
  bool in_block = false;
  std::string pending;
  for (std::string line; std::getline(section, line);) {
    const std::string trimmed = std::regex_replace(line, std::regex("^\\s+|\\s+$"), "");
    if (trimmed.rfind("```", 0) == 0) {
      in_block = !in_block && trimmed == "```sh";
      continue;
    }
    if (!in_block || trimmed.empty()) continue;
    const std::string code = std::regex_replace(trimmed, std::regex("\\s+#.*$"), "");
    if (!code.empty() && code.back() == '\\') {
      pending += code.substr(0, code.size() - 1) + " ";
      continue;
    }
    commands.push_back(pending + code);
    pending.clear();
  }
  return commands;
}

// The user's folder: the synthetic frames where the configs look for OpenLane-V2, the
// collection under its real name, and the repository's configs, scripts and programs.
fs::path quick_start_workspace() {
  const fs::path workspace = test::scratch_dir("readme_quick_start");
  const fs::path data = workspace / "OpenLane-V2/data/OpenLane-V2";
  fs::create_directories(data);
  const fs::path synthetic = test::synthetic_dataset(
      "readme_quick_start",
      "--frames 6 --val-frames 2 --test-frames 2 --image-scale 0.0625 --seed 21");
  for (const char* split : {"train", "val", "test"}) {
    fs::create_directory_symlink(synthetic / split, data / split);
  }
  fs::copy_file(synthetic / "data_dict_synthetic.json", data / "data_dict_subset_A.json");
  fs::create_directory_symlink(test::source_dir() / "configs", workspace / "configs");
  fs::create_directory_symlink(test::source_dir() / "scripts", workspace / "scripts");
  fs::create_directories(workspace / "build");
  fs::create_directory_symlink(test::bin_dir(), workspace / "build/bin");
  return workspace;
}

// What stands in for the cluster: two CPU ranks for 8 GPUs, and a short run without the
// pretrained backbone. The resumed run goes on for a second epoch.
std::string on_this_machine(std::string command) {
  command =
      std::regex_replace(command, std::regex("^(scripts/dist_\\w+\\.sh( \\S+){1,2}) 8\\b"), "$1 2");
  const bool trains = command.find("train_ds ") != std::string::npos ||
                      command.find("dist_train.sh ") != std::string::npos;
  const bool resumes = command.find("--resume-from auto") != std::string::npos;
  if (trains || command.find("test_ds ") != std::string::npos ||
      command.find("dist_test.sh ") != std::string::npos) {
    command += " --max-frames 2 --cfg-options data.workers_per_gpu=0 dist_params.timeout_s=60";
  }
  if (trains) {
    command +=
        std::string(" model.img_backbone.init_cfg=null runner.max_epochs=") + (resumes ? "2" : "1");
  }
  return command;
}

TEST(ReadmeQuickStart, EveryCommandRunsOnTheRealTree) {
  OLV2_REQUIRE_NUMPY(test::python_executable("debian"));
  OLV2_REQUIRE_DEVKIT_SOURCES();
  const std::vector<std::string> commands = readme_commands("Quick start: OpenLane-V2");
  const fs::path workspace = quick_start_workspace();
  std::vector<std::string> ran;
  for (const std::string& command : commands) {
    // Step 1 builds (the suite has built) and step 4 downloads the pretrained backbone.
    if (std::regex_search(command, std::regex("^(cmake|mkdir|curl) "))) continue;
    const std::string adapted = on_this_machine(command);
    SCOPED_TRACE(adapted);
    const test::CommandResult result = test::run_command(
        "cd '" + workspace.string() + "' && DIST_LAUNCHER=self OMP_NUM_THREADS=1 " + adapted);
    ASSERT_EQ(result.exit_status, 0) << result.output;
    if (command.rfind("scripts/dist_train.sh", 0) == 0) {
      EXPECT_NE(result.output.find("world size: 2"), std::string::npos) << result.output;
    }
    ran.push_back(command.substr(0, command.find(' ')));
  }
  // The section's steps, in its order: check, train on one process and on 8 (and resume),
  // score on one and on 8, submit.
  EXPECT_EQ(ran, (std::vector<std::string>{"build/bin/check_data", "build/bin/train_ds",
                                           "scripts/dist_train.sh", "scripts/dist_train.sh",
                                           "build/bin/test_ds", "scripts/dist_test.sh",
                                           "build/bin/test_ds"}));
  const fs::path work_dir = workspace / "work_dirs/baseline";
  const std::vector<nlohmann::json> validations = test::json_log_records(work_dir, "val");
  ASSERT_FALSE(validations.empty());
  EXPECT_EQ(validations.back().at("epoch"), 2) << "the resumed run trains the second epoch";
  EXPECT_TRUE(fs::is_regular_file(work_dir / "epoch_2.pth"));
  ASSERT_TRUE(fs::is_regular_file(workspace / "submission.pkl"));
  const test::CommandResult checked =
      test::run_devkit_check_results(workspace / "submission.pkl", workspace);
  ASSERT_EQ(checked.exit_status, 0) << checked.output;
  EXPECT_NE(checked.output.find("check_results: valid"), std::string::npos) << checked.output;
}

}  // namespace
}  // namespace olv2
