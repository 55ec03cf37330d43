// The full LaneSegNet config against the original's state dict (names, shapes and order, as the
// original builds it), and the builder's errors for configs the model cannot run.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>

#include "olv2/config/config_loader.h"
#include "olv2/models/bev/bevformer_constructer.h"
#include "olv2/models/build.h"
#include "olv2/models/detectors/lanesegnet.h"
#include "olv2/models/heads/relationship_head.h"
#include "support/input_error.h"
#include "support/state_dict_shapes.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

ConfigNode lanesegnet_model_section() {
  ConfigNode model =
      load_config_file(test::source_dir() / "configs/lanesegnet_r50_8x1_24e_olv2_subset_A.yaml")
          .at("model");
  model.find("img_backbone")->erase("init_cfg");  // no torchvision download here
  return model;
}

TEST(LaneSegNetBuild, TheConfigBuildsTheOriginalsStateDict) {
  const std::shared_ptr<DetectorImpl> detector = build_detector(lanesegnet_model_section());
  ASSERT_NE(dynamic_cast<LaneSegNetImpl*>(detector.get()), nullptr);
  const test::StateDictShapes ours = test::state_dict_shapes(*detector);
  // The original's, in state-dict order (tests/data/lanesegnet/README.md).
  const test::StateDictShapes expected = test::original_state_dict_shapes(
      test::source_dir() / "tests/data/lanesegnet/state_dict_shapes_subset_A.json");
  ASSERT_EQ(ours.size(), expected.size());
  for (size_t i = 0; i < ours.size(); ++i) ASSERT_EQ(ours[i], expected[i]) << "entry " << i;
}

// Its copies of TopoNet's temporal self-attention and of the relation head are read in its scope.
TEST(LaneSegNetBuild, ItsPartsAreReadInItsScope) {
  const LaneSegNetOptions options = LaneSegNetOptions::from_config(lanesegnet_model_section());
  const auto& bev = dynamic_cast<const BevFormerConstructerOptions&>(*options.bev_constructor);
  EXPECT_EQ(bev.encoder.layer.self_attention.code, TemporalSelfAttentionCode::kTopoNet);
  const auto& relations = dynamic_cast<const RelationshipHeadOptions&>(*options.lclc_head);
  EXPECT_TRUE(relations.matched_pairs_only);
  EXPECT_EQ(options.lane_head.code_size, 90);
  EXPECT_TRUE(options.lane_head.transformer.cross_attention.per_head_reference_points);
}

std::string build_error(ConfigNode model) {
  model.assign_paths("model");
  return test::input_error_of([&] { LaneSegNetOptions::from_config(model); });
}

ConfigNode with_cross_attention(const std::string& attention) {
  ConfigNode model = lanesegnet_model_section();
  model.find("lane_head")
      ->find("transformer")
      ->find("decoder")
      ->find("transformerlayers")
      ->set("attn_cfgs", parse_yaml("[{type: MultiheadAttention, embed_dims: 256, num_heads: 8}, " +
                                        attention + "]",
                                    "override"));
  return model;
}

TEST(LaneSegNetBuild, ConfigsItCannotRunAreRefusedNamingTheKey) {
  ConfigNode traffic_elements = lanesegnet_model_section();
  traffic_elements.set("lcte_head",
                       parse_yaml("{type: RelationshipHead, in_channels_o1: 256}", "override"));
  EXPECT_NE(build_error(traffic_elements).find("model.lcte_head"), std::string::npos);

  const std::string four_heads = build_error(with_cross_attention(
      "{type: LaneAttention, embed_dims: 256, num_heads: 4, num_points: 32, num_levels: 1}"));
  EXPECT_NE(four_heads.find("num_heads must be 8"), std::string::npos) << four_heads;

  const std::string deformable = build_error(with_cross_attention(
      "{type: MultiScaleDeformableAttention, embed_dims: 256, num_levels: 1}"));
  EXPECT_NE(deformable.find("LaneAttention"), std::string::npos) << deformable;

  ConfigNode no_refine = lanesegnet_model_section();
  no_refine.find("lane_head")->set("with_box_refine", parse_yaml("false", "override"));
  const std::string refine = build_error(no_refine);
  EXPECT_NE(refine.find("model.lane_head.with_box_refine"), std::string::npos) << refine;
}

}  // namespace
}  // namespace olv2
