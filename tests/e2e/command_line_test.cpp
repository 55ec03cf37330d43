// Every built program (apps and benchmarks, whatever build/bin holds) treats its command line
// the same way: a bad flag is one line on stderr and exit status 2; --help is help and status 0.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_command.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

// Bounds a program that ignored its command line and started working.
const char* const kTimeout = "timeout 120 ";

std::vector<std::string> programs() {
  std::vector<std::string> names;
  for (const fs::directory_entry& entry : fs::directory_iterator(test::bin_dir())) {
    const fs::perms perms = entry.status().permissions();
    if (entry.is_regular_file() && (perms & fs::perms::owner_exec) != fs::perms::none) {
      names.push_back(entry.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

test::CommandResult run_program(const std::string& name, const std::string& arguments) {
  return test::run_command(kTimeout + ("'" + (test::bin_dir() / name).string() + "' ") + arguments);
}

TEST(CommandLine, BinDirHoldsTheAppsAndTheBenchmarks) {
  const std::vector<std::string> names = programs();
  for (const char* expected : {"train_ds", "check_data", "probe_model", "bench_loader"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end())
        << expected << " not in " << test::bin_dir();
  }
}

TEST(CommandLine, UnknownFlagIsOneLineNamingItAndExitsTwo) {
  for (const std::string& name : programs()) {
    SCOPED_TRACE(name);
    const test::CommandResult result = run_program(name, "--no-such-flag");
    EXPECT_EQ(result.exit_status, 2) << result.output;
    EXPECT_EQ(std::count(result.output.begin(), result.output.end(), '\n'), 1) << result.output;
    EXPECT_EQ(result.output.rfind(name + ": error: ", 0), 0u) << result.output;
    EXPECT_NE(result.output.find("--no-such-flag"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find(name + " --help"), std::string::npos) << result.output;
  }
}

TEST(CommandLine, BadValueIsOneLineAndExitsTwo) {
  const test::CommandResult result = run_program("probe_model", "--mode sideways");
  EXPECT_EQ(result.exit_status, 2) << result.output;
  EXPECT_EQ(std::count(result.output.begin(), result.output.end(), '\n'), 1) << result.output;
  EXPECT_NE(result.output.find("--mode"), std::string::npos) << result.output;
}

// An input file or folder a flag names is checked as the command line is read: one line naming
// the flag and the path, status 2.
TEST(CommandLine, AMissingInputIsNamedWithItsFlag) {
  const std::string folder = "'" + test::source_dir().string() + "'";
  const std::vector<std::vector<std::string>> cases = {
      {"evaluate", "--split val --results /dev/null --ground-truth nosuch.pkl", "--ground-truth"},
      {"evaluate", "--split val --ground-truth /dev/null --results nosuch.json", "--results"},
      {"check_data", "--data-root " + folder + " --collection nosuch.json", "--collection"},
      {"check_data", "--data-root nosuch_dir --collection /dev/null", "--data-root"},
      {"visualize",
       "--data-root " + folder +
           " --collection /dev/null --split val --out-dir nosuch_out "
           "--results nosuch.json",
       "--results"},
      {"visualize",
       "--data-root " + folder + " --collection nosuch.json --split val --out-dir nosuch_out",
       "--collection nosuch.json: no such file, as given or under --data-root"},
      // Underscore spellings reach the same checks.
      {"evaluate",
       "--data_root " + folder + " --collection nosuch.json --split val --results /dev/null",
       "--collection nosuch.json: no such file, as given or under --data-root"},
      {"visualize", "nosuch.yaml --split val --out-dir nosuch_out", "config"},
      {"publish_checkpoint", "nosuch.pth out.pth", "in"},
      {"benchmark", "nosuch.yaml e.pth", "config"},
      {"probe_model", "nosuch.yaml --mode state-dict --out nosuch_out.json", "config"},
      {"inspect_checkpoint", "nosuch.pth", "file"},
  };
  for (const std::vector<std::string>& item : cases) {
    SCOPED_TRACE(item[0] + " " + item[1]);
    const test::CommandResult result = run_program(item[0], item[1]);
    EXPECT_EQ(result.exit_status, 2) << result.output;
    EXPECT_EQ(std::count(result.output.begin(), result.output.end(), '\n'), 1) << result.output;
    EXPECT_EQ(result.output.rfind(item[0] + ": error: " + item[2], 0), 0u) << result.output;
    EXPECT_NE(result.output.find("nosuch"), std::string::npos) << result.output;
  }
}

// Every program says what it is: its name, the project's version and git revision, the
// LibTorch it runs on and the BLAS, before and without doing anything else.
TEST(CommandLine, VersionNamesTheProgramLibTorchAndBlas) {
  for (const std::string& name : programs()) {
    SCOPED_TRACE(name);
    const test::CommandResult result = run_program(name, "--version");
    EXPECT_EQ(result.exit_status, 0) << result.output;
    EXPECT_EQ(result.output.rfind(name + " 0.1.0 (git ", 0), 0u) << result.output;
    EXPECT_NE(result.output.find("), LibTorch "), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("\nBLAS: "), std::string::npos) << result.output;
    EXPECT_EQ(std::count(result.output.begin(), result.output.end(), '\n'), 2) << result.output;
  }
}

TEST(CommandLine, HelpPrintsUsageAndExitsZero) {
  for (const std::string& name : programs()) {
    SCOPED_TRACE(name);
    const test::CommandResult result = run_program(name, "--help");
    EXPECT_EQ(result.exit_status, 0) << result.output;
    EXPECT_NE(result.output.find("--help"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("Usage: " + name), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("--version"), std::string::npos) << result.output;
    // The dashed spelling is the one listed; the underscored one is accepted everywhere.
    std::istringstream lines(result.output);
    for (std::string line; std::getline(lines, line);) {
      const size_t start = line.find_first_not_of(' ');
      if (start == std::string::npos || line[start] != '-') continue;
      const std::string names = line.substr(start, line.find(' ', start) - start);
      EXPECT_EQ(names.find('_'), std::string::npos) << line;
    }
  }
}

}  // namespace
}  // namespace olv2
