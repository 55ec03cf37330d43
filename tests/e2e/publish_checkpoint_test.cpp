// publish_checkpoint, as mmdet's publish_model.py: the weights and meta of a training checkpoint
// in a file named by its own SHA-256, as sha256sum computes it.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <string>
#include <vector>

#include "olv2/util/pth/pth_file.h"
#include "support/run_command.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

// A training checkpoint's parts: meta, state_dict, and what a published one leaves out.
PthValue publish_training_checkpoint() {
  PthValue meta = PthValue::dict();
  meta.set("epoch", PthValue::from_int(3));
  meta.set("config", PthValue::from_string("model:\n  type: Baseline\n"));
  PthValue state_dict = PthValue::dict({}, /*ordered=*/true);
  state_dict.set("backbone.weight",
                 PthValue::tensor(torch::arange(12, torch::kFloat).view({3, 4})));
  state_dict.set("head.bias", PthValue::tensor(torch::tensor({1.5, -2.0})));
  PthValue optimizer = PthValue::dict();
  optimizer.set("state", PthValue::tensor(torch::zeros({1000})));
  PthValue checkpoint = PthValue::dict();
  checkpoint.set("meta", meta);
  checkpoint.set("state_dict", state_dict);
  checkpoint.set("optimizer", optimizer);
  checkpoint.set("loss_scaler", PthValue::dict());
  return checkpoint;
}

// The one file of `dir` whose name starts with `stem-`.
fs::path publish_only_file(const fs::path& dir, const std::string& stem) {
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind(stem + "-", 0) == 0) found.push_back(entry.path());
  }
  EXPECT_EQ(found.size(), 1u) << dir;
  return found.empty() ? fs::path() : found.front();
}

TEST(PublishCheckpoint, KeepsMetaAndWeightsInAFileNamedByItsHash) {
  const fs::path dir = test::scratch_dir("publish_checkpoint");
  const fs::path in = dir / "epoch_3.pth";
  write_pth(in, publish_training_checkpoint());
  const test::CommandResult result = test::run_app(
      "publish_checkpoint", "'" + in.string() + "' '" + (dir / "baseline.pth").string() + "'");
  ASSERT_EQ(result.exit_status, 0) << result.output;

  const fs::path published = publish_only_file(dir, "baseline");
  ASSERT_FALSE(published.empty());
  const std::string name = published.filename().string();
  ASSERT_EQ(name.size(), std::string("baseline-12345678.pth").size()) << name;
  const test::CommandResult digest = test::run_command("sha256sum '" + published.string() + "'");
  ASSERT_EQ(digest.exit_status, 0) << digest.output;
  EXPECT_EQ(name.substr(9, 8), digest.output.substr(0, 8)) << name << " " << digest.output;
  EXPECT_NE(result.output.find(digest.output.substr(0, 64)), std::string::npos) << result.output;

  const PthValue content = read_pth(published);
  ASSERT_EQ(content.dict_items().size(), 2u);
  EXPECT_EQ(content.at("meta").at("epoch").as_int(), 3);
  const PthValue& weights = content.at("state_dict");
  EXPECT_TRUE(weights.is_ordered_dict());
  EXPECT_TRUE(torch::equal(weights.at("backbone.weight").as_tensor(),
                           torch::arange(12, torch::kFloat).view({3, 4})));
  EXPECT_TRUE(torch::equal(weights.at("head.bias").as_tensor(), torch::tensor({1.5, -2.0})));
  EXPECT_LT(fs::file_size(published), fs::file_size(in));
}

TEST(PublishCheckpoint, AStateDictIsPublishedUnderStateDictAndOtherContentIsRefused) {
  const fs::path dir = test::scratch_dir("publish_state_dict");
  PthValue state_dict = PthValue::dict({}, /*ordered=*/true);
  state_dict.set("w", PthValue::tensor(torch::ones({2})));
  write_pth(dir / "weights.pth", state_dict);
  const test::CommandResult published =
      test::run_app("publish_checkpoint", "'" + (dir / "weights.pth").string() + "' '" +
                                              (dir / "model.pth").string() + "'");
  ASSERT_EQ(published.exit_status, 0) << published.output;
  const PthValue content = read_pth(publish_only_file(dir, "model"));
  EXPECT_TRUE(torch::equal(content.at("state_dict").at("w").as_tensor(), torch::ones({2})));

  PthValue odd = PthValue::dict();
  odd.set("note", PthValue::from_string("not weights"));
  write_pth(dir / "odd.pth", odd);
  const test::CommandResult refused =
      test::run_app("publish_checkpoint",
                    "'" + (dir / "odd.pth").string() + "' '" + (dir / "x.pth").string() + "'");
  EXPECT_EQ(refused.exit_status, 2) << refused.output;
  EXPECT_NE(refused.output.find("odd.pth: expected a checkpoint with `state_dict`"),
            std::string::npos)
      << refused.output;
  const test::CommandResult no_pth =
      test::run_app("publish_checkpoint", "'" + (dir / "weights.pth").string() + "' '" +
                                              (dir / "model.bin").string() + "'");
  EXPECT_EQ(no_pth.exit_status, 2) << no_pth.output;
  EXPECT_NE(no_pth.output.find("expected a .pth file name"), std::string::npos) << no_pth.output;
}

}  // namespace
}  // namespace olv2
