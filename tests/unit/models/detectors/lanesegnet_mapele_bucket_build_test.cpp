// The full Map Element Bucket config against the original's state dict (names, shapes and order,
// as the original builds it), and the builder's errors for configs the model cannot run.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>

#include "olv2/config/config_loader.h"
#include "olv2/models/build.h"
#include "olv2/models/detectors/lanesegnet_mapele_bucket.h"
#include "olv2/models/heads/relationship_head.h"
#include "support/input_error.h"
#include "support/state_dict_shapes.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

ConfigNode map_element_bucket_model_section() {
  ConfigNode model =
      load_config_file(test::source_dir() /
                       "configs/lanesegnet_r50_8x1_24e_olv2_subset_A_mapele_bucket.yaml")
          .at("model");
  model.find("img_backbone")->erase("init_cfg");  // no torchvision download here
  return model;
}

TEST(MapElementBucketBuild, TheConfigBuildsTheOriginalsStateDict) {
  const std::shared_ptr<DetectorImpl> detector = build_detector(map_element_bucket_model_section());
  ASSERT_NE(dynamic_cast<LaneSegNetMapElementBucketImpl*>(detector.get()), nullptr);
  const test::StateDictShapes ours = test::state_dict_shapes(*detector);
  // The original's, in state-dict order (tests/data/lanesegnet_mapele_bucket/README.md).
  const test::StateDictShapes expected = test::original_state_dict_shapes(
      test::source_dir() /
      "tests/data/lanesegnet_mapele_bucket/state_dict_shapes_subset_A_mapele_bucket.json");
  ASSERT_EQ(ours.size(), expected.size());
  for (size_t i = 0; i < ours.size(); ++i) ASSERT_EQ(ours[i], expected[i]) << "entry " << i;
}

TEST(MapElementBucketBuild, ItsPartsAreTheConfigs) {
  const auto options =
      LaneSegNetMapElementBucketOptions::from_config(map_element_bucket_model_section());
  for (const auto& head : {options.lsls_head, options.lste_head}) {
    const auto& relations = dynamic_cast<const RelationshipHeadOptions&>(*head);
    EXPECT_TRUE(relations.matched_pairs_only);
    EXPECT_FALSE(relations.shared_param);
  }
  ASSERT_TRUE(options.area_head.has_value());
  EXPECT_EQ(options.area_head->num_queries(), 1000);  // 50 instances of 20 points, not num_query
  EXPECT_EQ(options.area_head->num_classes, 2);
  EXPECT_EQ(options.area_head->transformer.num_layers, 6);
  EXPECT_EQ(options.lane_head.num_classes, 1);
}

std::string bucket_build_error(ConfigNode model) {
  model.assign_paths("model");
  return test::input_error_of([&] { LaneSegNetMapElementBucketOptions::from_config(model); });
}

TEST(MapElementBucketBuild, ConfigsItCannotRunAreRefusedNamingTheKey) {
  ConfigNode two_classes = map_element_bucket_model_section();
  two_classes.find("lane_head")->set("num_classes", parse_yaml("2", "override"));
  const std::string classes = bucket_build_error(two_classes);
  EXPECT_NE(classes.find("model.lane_head.num_classes"), std::string::npos) << classes;

  ConfigNode no_boxes = map_element_bucket_model_section();
  no_boxes.set("bbox_head", parse_yaml("null", "override"));
  const std::string boxes = bucket_build_error(no_boxes);
  EXPECT_NE(boxes.find("model.lste_head"), std::string::npos) << boxes;

  ConfigNode no_refine = map_element_bucket_model_section();
  no_refine.find("area_head")->set("with_box_refine", parse_yaml("false", "override"));
  const std::string refine = bucket_build_error(no_refine);
  EXPECT_NE(refine.find("model.area_head.with_box_refine"), std::string::npos) << refine;

  ConfigNode narrow = map_element_bucket_model_section();
  narrow.find("area_head")
      ->set("positional_encoding",
            parse_yaml("{type: SinePositionalEncoding, num_feats: 64, normalize: true}", "o"));
  const std::string encoding = bucket_build_error(narrow);
  EXPECT_NE(encoding.find("num_feats"), std::string::npos) << encoding;

  ConfigNode no_area_assigner = map_element_bucket_model_section();
  no_area_assigner.find("train_cfg")->erase("area");
  const std::string assigner = bucket_build_error(no_area_assigner);
  EXPECT_NE(assigner.find("train_cfg.area"), std::string::npos) << assigner;
}

// Without the optional heads the model is LaneSegNet's lane segments alone, and still builds.
TEST(MapElementBucketBuild, EveryHeadButTheLaneHeadMayBeLeftOut) {
  ConfigNode model = map_element_bucket_model_section();
  for (const char* head : {"lsls_head", "bbox_head", "lste_head", "area_head"}) {
    model.set(head, parse_yaml("null", "override"));
  }
  const auto options = LaneSegNetMapElementBucketOptions::from_config(model);
  EXPECT_FALSE(options.area_head.has_value());
  EXPECT_EQ(options.bbox_head, nullptr);
  const std::shared_ptr<DetectorImpl> detector = options.build();
  for (const auto& entry : detector->named_parameters()) {
    const std::string& name = entry.key();
    EXPECT_TRUE(name.rfind("img_", 0) == 0 || name.rfind("bev_constructor.", 0) == 0 ||
                name.rfind("pts_bbox_head.", 0) == 0)
        << name;
  }
}

}  // namespace
}  // namespace olv2
