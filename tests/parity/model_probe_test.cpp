// probe_model reproduces the original's numbers from the command line.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "model_fixture.h"
#include "support/run_command.h"
#include "support/test_paths.h"

namespace olv2::test {
namespace {

std::string probe_arguments(const std::filesystem::path& dir, const std::filesystem::path& out,
                            const std::string& mode) {
  const auto config = source_dir() / "configs" / "fixtures" / "baseline.yaml";
  return "--config " + config.string() + " --state-dict " +
         (dir / "baseline_state_dict.pt").string() + " --input " +
         (dir / "baseline_input.pt").string() + " --out " + out.string() + " --mode " + mode;
}

TEST(ProbeModel, TrainModeWritesTheOriginalLossesAndMatchings) {
  OLV2_REQUIRE_FIXTURE(json_path, "baseline_losses.json");
  const auto dir = json_path.parent_path();
  const auto out = scratch_dir("probe_model_train") / "probe.json";
  const CommandResult result = run_app("probe_model", probe_arguments(dir, out, "train"));
  ASSERT_EQ(result.exit_status, 0) << result.output;
  const nlohmann::json probe = load_json(out);
  const nlohmann::json expected = load_json(json_path);
  ASSERT_EQ(probe.at("losses").size(), expected.at("losses").size());
  for (const auto& [name, value] : expected.at("losses").items()) {
    const double reference = value.get<double>();
    EXPECT_NEAR(probe.at("losses").at(name).get<double>(), reference, 1e-4 * std::abs(reference))
        << name;
  }
  const double total = expected.at("total_loss").get<double>();
  EXPECT_NEAR(probe.at("total_loss").get<double>(), total, 1e-4 * total);

  const TensorMap intermediates = load_tensor_dict(dir / "baseline_intermediates.pt");
  for (const std::string head : {"lc_head", "te_head"}) {
    for (const std::string field : {"pos_inds", "pos_assigned_gt_inds"}) {
      const at::Tensor reference =
          at_key(intermediates, "train." + head + ".assign_result.0." + field + ".0");
      const std::vector<int64_t> ours = probe.at("assignments").at(head).at(field);
      EXPECT_EQ(ours, std::vector<int64_t>(reference.data_ptr<int64_t>(),
                                           reference.data_ptr<int64_t>() + reference.numel()))
          << head << "." << field;
    }
  }
}

TEST(ProbeModel, TestModeWritesTheOriginalOutputs) {
  OLV2_REQUIRE_FIXTURE(outputs_path, "baseline_outputs.pt");
  const auto dir = outputs_path.parent_path();
  const auto out = scratch_dir("probe_model_test") / "probe.json";
  const CommandResult result = run_app("probe_model", probe_arguments(dir, out, "test"));
  ASSERT_EQ(result.exit_status, 0) << result.output;
  const nlohmann::json probe = load_json(out).at("outputs");
  const TensorMap expected = load_tensor_dict(outputs_path);
  ASSERT_EQ(probe.size(), expected.size());
  for (const auto& [key, reference] : expected) {
    const std::vector<double> flat = [&] {
      std::vector<double> values;
      std::function<void(const nlohmann::json&)> collect = [&](const nlohmann::json& node) {
        if (node.is_array()) {
          for (const auto& child : node) collect(child);
        } else {
          values.push_back(node.get<double>());
        }
      };
      collect(probe.at(key));
      return values;
    }();
    const at::Tensor ours = torch::tensor(flat, torch::kDouble).view(reference.sizes());
    expect_close(ours, reference, key);
  }
}

TEST(ProbeModel, BadInputsExitWithStatusTwoAndOneLine) {
  const auto dir = scratch_dir("probe_model_bad");
  const CommandResult result =
      run_app("probe_model",
              "--config " + (source_dir() / "configs" / "fixtures" / "baseline.yaml").string() +
                  " --state-dict " + (dir / "missing.pt").string() + " --input x.pt --out " +
                  (dir / "o.json").string());
  EXPECT_EQ(result.exit_status, 2) << result.output;
  EXPECT_EQ(result.output.rfind("probe_model: error: ", 0), 0u) << result.output;
}

}  // namespace
}  // namespace olv2::test
