#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>

#include "olv2/config/config_loader.h"
#include "olv2/models/backbones/backbone.h"
#include "olv2/models/build.h"
#include "olv2/models/detectors/baseline.h"
#include "olv2/models/necks/fpn.h"
#include "olv2/models/necks/neck.h"
#include "olv2/util/error.h"
#include "olv2/util/state_dict.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

std::string read_error(const Registry<BackboneOptions>& registry, const ConfigNode& section) {
  try {
    registry.read(section);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

bool has_key(const NamedTensors& state, const std::string& key) {
  for (const auto& [name, tensor] : state) {
    if (name == key) return true;
  }
  return false;
}

TEST(Registry, AnUnknownTypeNamesTheFamilyAndTheKnownTypes) {
  const ConfigNode section = parse_yaml("type: Swin\ndepth: 18\n", "backbone.yaml");
  const std::string message = read_error(backbone_registry(), section);
  EXPECT_NE(message.find("backbone.yaml:1"), std::string::npos) << message;
  EXPECT_NE(message.find("unknown backbone type `Swin` (expected one of: ResNet)"),
            std::string::npos)
      << message;
  EXPECT_EQ(neck_registry().types(), (std::vector<std::string>{"CustomFPN", "FPN"}));
}

TEST(Registry, TheSchemaOfAFamilyChecksTheKeysOfTheChosenType) {
  // `out_ids` is a CustomFPN key, not an FPN one.
  const ConfigNode fpn = parse_yaml(
      "type: FPN\nin_channels: [8]\nout_channels: 4\nnum_outs: 1\nout_ids: [0]\n", "neck.yaml");
  const std::vector<std::string> problems = neck_registry().schema().problems(fpn);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("out_ids"), std::string::npos) << problems[0];
}

// A Baseline is a composition of parts: any registered neck that gives one level fits, and the
// parameters keep the part's own names under the slot's.
TEST(Registry, TheBaselineTakesAnyRegisteredNeck) {
  ConfigNode model =
      load_config_file(test::source_dir() / "configs" / "fixtures" / "baseline.yaml").at("model");
  model.set("img_neck", parse_yaml("type: FPN\nin_channels: [256, 512]\nout_channels: 128\n"
                                   "num_outs: 1\nend_level: 0\n",
                                   "neck.yaml"));
  const BaselineOptions options = BaselineOptions::from_config(model);
  ASSERT_NE(dynamic_cast<const FpnOptions*>(options.img_neck.get()), nullptr);
  BaselineImpl baseline(options);
  const NamedTensors state = module_state_dict(baseline);
  EXPECT_TRUE(has_key(state, "img_neck.lateral_convs.0.conv.weight"));
  EXPECT_FALSE(has_key(state, "img_neck.lateral_convs.1.conv.weight"));  // end_level 0
  const std::vector<at::Tensor> levels =
      baseline.img_neck()->forward(baseline.img_backbone()->forward(torch::zeros({1, 3, 64, 96})));
  ASSERT_EQ(levels.size(), 1u);
  EXPECT_EQ(levels[0].sizes(), (std::vector<int64_t>{1, 128, 4, 6}));  // stage 2, stride 16
}

}  // namespace
}  // namespace olv2
