// The full TopoNet configs of both subsets against the original's state dicts (names, shapes and
// order, as the original builds them), and the builder's errors for configs the model cannot run.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "olv2/config/config_loader.h"
#include "olv2/models/bev/bevformer_constructer.h"
#include "olv2/models/build.h"
#include "olv2/models/detectors/toponet.h"
#include "olv2/models/heads/toponet_head.h"
#include "olv2/util/error.h"
#include "support/state_dict_shapes.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

ConfigNode toponet_model_section(const std::string& subset) {
  ConfigNode model = load_config_file(test::source_dir() / "configs" /
                                      ("toponet_r50_8x1_24e_olv2_subset_" + subset + ".yaml"))
                         .at("model");
  model.find("img_backbone")->erase("init_cfg");  // no torchvision download here
  return model;
}

std::string toponet_build_error(ConfigNode model) {
  model.assign_paths("model");
  try {
    TopoNetOptions::from_config(model);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

class TopoNetBuild : public ::testing::TestWithParam<std::string> {};

TEST_P(TopoNetBuild, TheConfigBuildsTheOriginalsStateDict) {
  const std::shared_ptr<DetectorImpl> detector = build_detector(toponet_model_section(GetParam()));
  ASSERT_NE(dynamic_cast<TopoNetImpl*>(detector.get()), nullptr);
  const test::StateDictShapes ours = test::state_dict_shapes(*detector);
  // The original's, in state-dict order (tests/data/toponet/README.md).
  const test::StateDictShapes expected =
      test::original_state_dict_shapes(test::source_dir() / "tests/data/toponet" /
                                       ("state_dict_shapes_subset_" + GetParam() + ".json"));
  ASSERT_EQ(ours.size(), expected.size());
  for (size_t i = 0; i < ours.size(); ++i) {
    ASSERT_EQ(ours[i], expected[i]) << "entry " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(BothSubsets, TopoNetBuild, ::testing::Values("A", "B"));

// The parts are read by type from their registries, the BEV constructor in TopoNet's scope,
// where `TemporalSelfAttention` is TopoNet's copy.
TEST(TopoNetBuildErrors, TheTemporalSelfAttentionIsTopoNets) {
  const TopoNetOptions options = TopoNetOptions::from_config(toponet_model_section("A"));
  const auto& bev = dynamic_cast<const BevFormerConstructerOptions&>(*options.bev_constructor);
  EXPECT_EQ(bev.encoder.layer.self_attention.code, TemporalSelfAttentionCode::kTopoNet);
  const auto& lanes = dynamic_cast<const TopoNetHeadOptions&>(*options.lane_head);
  EXPECT_EQ(lanes.pts_dim, 3);
  EXPECT_EQ(lanes.code_size, 33);
  EXPECT_EQ(options.lane_head->lane_point_dims(), 3);
  const TopoNetOptions subset_b = TopoNetOptions::from_config(toponet_model_section("B"));
  EXPECT_EQ(dynamic_cast<const TopoNetHeadOptions&>(*subset_b.lane_head).code_size, 22);
  EXPECT_EQ(subset_b.lane_head->lane_point_dims(), 2);
}

TEST(TopoNetBuildErrors, DecodersOfDifferentDepthsAreRefusedNamingTheKey) {
  ConfigNode model = toponet_model_section("A");
  model.find("bbox_head")
      ->find("transformer")
      ->find("decoder")
      ->set("num_layers", parse_yaml("3", "override"));
  const std::string error = toponet_build_error(model);
  EXPECT_NE(error.find("model.bbox_head"), std::string::npos) << error;
  EXPECT_NE(error.find("3 traffic-element decoder layers"), std::string::npos) << error;
  EXPECT_NE(error.find("the two num_layers must be equal"), std::string::npos) << error;
}

// Lane heads come from one registry; a head that predicts no relations cannot be TopoNet's, and
// TopoNet's, which needs the traffic elements, cannot be a baseline's.
TEST(TopoNetBuildErrors, ALaneHeadOfAnotherDetectorIsRefused) {
  const ConfigNode baseline_large =
      load_config_file(test::source_dir() / "configs" / "baseline_large.yaml").at("model");
  ConfigNode model = toponet_model_section("A");
  model.set("lane_head", baseline_large.at("pts_bbox_head"));
  const std::string error = toponet_build_error(model);
  EXPECT_NE(error.find(":188:"), std::string::npos) << error;  // the head's `type`
  EXPECT_NE(error.find("LCDeformableDETRHead predicts no relations"), std::string::npos) << error;
  EXPECT_NE(error.find("TopoNetHead"), std::string::npos) << error;

  ConfigNode large = baseline_large;
  large.find("img_backbone")->erase("init_cfg");
  large.set("pts_bbox_head", toponet_model_section("A").at("lane_head"));
  large.assign_paths("model");
  try {
    detector_registry().read(large);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("TopoNetHead decodes with the traffic-element head's outputs"),
              std::string::npos)
        << message;
  }
}

TEST(TopoNetBuildErrors, AnFfnSgnnWithoutItsTypeIsRefused) {
  ConfigNode model = toponet_model_section("A");
  ConfigNode& layer =
      *model.find("lane_head")->find("transformer")->find("decoder")->find("transformerlayers");
  layer.find("ffn_cfgs")->set("type", parse_yaml("FFN", "override"));
  const std::string error = toponet_build_error(model);
  EXPECT_NE(error.find("ffn_cfgs"), std::string::npos) << error;
  EXPECT_NE(error.find("FFN_SGNN"), std::string::npos) << error;
}

}  // namespace
}  // namespace olv2
