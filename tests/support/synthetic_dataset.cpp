#include "support/synthetic_dataset.h"

#include <gtest/gtest.h>

#include <fstream>

#include "support/run_command.h"
#include "support/test_paths.h"

namespace olv2::test {

std::filesystem::path synthetic_dataset(const std::string& name, const std::string& arguments) {
  const std::filesystem::path dir = std::filesystem::path(OLV2_BINARY_DIR) / "test_data" / name;
  // Reused only when written with the same arguments: a changed test regenerates its data.
  const std::filesystem::path stamp = dir / "generated_with.txt";
  std::ifstream previous(stamp);
  std::string previous_arguments;
  std::getline(previous, previous_arguments);
  if (std::filesystem::exists(dir / "data_dict_synthetic.json") &&
      previous_arguments == arguments) {
    return dir;
  }
  std::filesystem::remove_all(dir);
  const CommandResult result =
      run_app("make_synthetic_data", "--out-dir '" + dir.string() + "' " + arguments);
  EXPECT_EQ(result.exit_status, 0) << result.output;
  std::ofstream(stamp) << arguments << "\n";
  return dir;
}

}  // namespace olv2::test
