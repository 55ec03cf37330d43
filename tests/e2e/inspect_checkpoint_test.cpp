#include <gtest/gtest.h>

#include "support/run_command.h"
#include "support/test_paths.h"
#include "unit/util/pth/pth_expectations.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

std::string shape_text(const nlohmann::json& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i > 0 ? ", " : "") + std::to_string(shape[i].get<int64_t>());
  return text + "]";
}

TEST(InspectCheckpoint, PrintsKeysDtypesAndShapesOfEveryTestFile) {
  const nlohmann::json files = test::read_json(test::pth_data_dir() / "expected.json")["files"];
  for (const auto& [name, record] : files.items()) {
    const test::CommandResult result =
        test::run_app("inspect_checkpoint", "'" + (test::pth_data_dir() / name).string() + "'");
    ASSERT_EQ(result.exit_status, 0) << name << "\n" << result.output;
    for (const auto& [path, facts] : record["values"].items()) {
      const std::string key = path.substr(path.find_last_of('/') + 1);
      if (!key.empty() && (key[0] < '0' || key[0] > '9')) {
        EXPECT_NE(result.output.find(key + ": "), std::string::npos) << name << ": key " << key;
      }
      if (facts["kind"] == "tensor") {
        const std::string expected =
            facts["dtype"].get<std::string>() + " " + shape_text(facts["shape"]);
        EXPECT_NE(result.output.find(key + ": tensor " + expected), std::string::npos)
            << name << ": " << expected;
      }
    }
  }
}

TEST(InspectCheckpoint, TensorsFlagAddsStatistics) {
  const test::CommandResult result = test::run_app(
      "inspect_checkpoint", "--tensors '" + (test::pth_data_dir() / "dtypes.pth").string() + "'");
  ASSERT_EQ(result.exit_status, 0) << result.output;
  EXPECT_NE(result.output.find("min "), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("first ["), std::string::npos) << result.output;
}

TEST(InspectCheckpoint, ReadsEveryFixtureCheckpoint) {
  OLV2_REQUIRE_FIXTURE(state_dict, "baseline_state_dict.pt");
  int inspected = 0;
  for (const auto& entry : fs::directory_iterator(test::fixtures_dir())) {
    if (entry.path().extension() != ".pt") continue;
    const test::CommandResult result =
        test::run_app("inspect_checkpoint", "'" + entry.path().string() + "'");
    EXPECT_EQ(result.exit_status, 0) << entry.path() << "\n" << result.output.substr(0, 2000);
    EXPECT_NE(result.output.find(": tensor "), std::string::npos) << entry.path();
    ++inspected;
  }
  EXPECT_GT(inspected, 0);
}

TEST(InspectCheckpoint, BadFileExitsWithStatusTwoAndNamesIt) {
  const fs::path file = test::scratch_dir("bad") / "broken.pth";
  std::ofstream(file) << "this is not a checkpoint";
  const test::CommandResult result = test::run_app("inspect_checkpoint", "'" + file.string() + "'");
  EXPECT_EQ(result.exit_status, 2) << result.output;
  EXPECT_NE(result.output.find("inspect_checkpoint: error: file " + file.string() +
                               ": not a torch.save file"),
            std::string::npos)
      << result.output;
}

}  // namespace
}  // namespace olv2
