// The full baseline_large.yaml model against the spec's state-dict table (spec
// baseline_large.md §8), without any fixture, and the builder's errors for configs the model
// cannot run.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <map>

#include "olv2/config/config_loader.h"
#include "olv2/models/build.h"
#include "olv2/models/detectors/baseline_large.h"
#include "olv2/util/error.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

ConfigNode large_model_section(const std::string& file) {
  ConfigNode model = load_config_file(test::source_dir() / "configs" / file).at("model");
  model.find("img_backbone")->erase("init_cfg");  // no torchvision download here
  return model;
}

// The error of building `model` after an override, whose key paths are named as the config
// loader names them.
std::string large_build_error(ConfigNode model) {
  model.assign_paths("model");
  try {
    BaselineLargeOptions::from_config(model);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(BaselineLargeBuild, TheFullModelHasTheSpecsStateDict) {
  const std::shared_ptr<DetectorImpl> detector =
      build_detector(large_model_section("baseline_large.yaml"));
  ASSERT_NE(dynamic_cast<BaselineLargeImpl*>(detector.get()), nullptr);

  int64_t parameters = 0, parameter_values = 0, trainable = 0, buffers = 0, buffer_values = 0;
  std::map<std::string, int64_t> by_module;
  for (const auto& item : detector->named_parameters()) {
    ++parameters;
    parameter_values += item.value().numel();
    if (item.value().requires_grad()) trainable += item.value().numel();
    by_module[item.key().substr(0, item.key().find('.'))] += item.value().numel();
  }
  for (const auto& item : detector->named_buffers()) {
    ++buffers;
    buffer_values += item.value().numel();
  }
  EXPECT_EQ(parameters + buffers, 969);
  EXPECT_EQ(parameters, 810);
  EXPECT_EQ(buffers, 159);
  EXPECT_EQ(parameter_values, 49521948);
  EXPECT_EQ(buffer_values, 53173);
  EXPECT_EQ(trainable, 49246413);
  const std::map<std::string, int64_t> expected{
      {"pts_bbox_head", 5765042},   {"img_backbone", 23508032}, {"img_neck", 3278592},
      {"bev_constructor", 7667648}, {"bbox_head", 8381032},     {"lclc_head", 460801},
      {"lcte_head", 460801}};
  EXPECT_EQ(by_module, expected);

  // A few shapes of the table, one per family.
  const auto params = detector->named_parameters();
  const std::map<std::string, std::vector<int64_t>> shapes{
      {"bev_constructor.encoder.layers.2.attentions.0.sampling_offsets.weight", {128, 512}},
      {"bev_constructor.encoder.layers.0.attentions.1.deformable_attention.sampling_offsets."
       "weight",
       {512, 256}},
      {"bev_constructor.bev_embedding.weight", {20000, 256}},
      {"bev_constructor.can_bus_mlp.0.weight", {128, 18}},
      {"bbox_head.transformer.encoder.layers.5.attentions.0.attention_weights.weight", {128, 256}},
      {"bbox_head.reg_branches.5.4.weight", {4, 256}},
      {"pts_bbox_head.transformer.decoder.layers.5.attentions.1.sampling_offsets.weight",
       {64, 256}},
      {"pts_bbox_head.cls_branches.0.6.weight", {1, 256}},
      {"img_neck.fpn_convs.3.conv.weight", {256, 256, 3, 3}},
      {"lcte_head.MLP_o2.layers.2.weight", {128, 256}}};
  for (const auto& [name, shape] : shapes) {
    const at::Tensor* p = params.find(name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_EQ(p->sizes().vec(), shape) << name;
  }
}

TEST(BaselineLargeBuild, TheV100VariantCheckpointsTheTwoStagesInFp16) {
  const ConfigNode root = load_config_file(test::source_dir() / "configs/baseline_large_v100.yaml");
  EXPECT_TRUE(root.at("fp16").at("enabled").as_bool());
  const BaselineLargeOptions options =
      BaselineLargeOptions::from_config(large_model_section("baseline_large_v100.yaml"));
  EXPECT_EQ(options.checkpoint, kBaselineLargeCheckpointableStages);
  EXPECT_EQ(dynamic_cast<const BevFormerConstructerOptions&>(*options.bev_constructor).bev_h, 100);
  EXPECT_EQ(dynamic_cast<const TeDeformableDetrHeadOptions&>(*options.bbox_head).num_encoder_layers,
            6);
}

TEST(BaselineLargeBuild, ConfigsTheModelCannotRunAreErrorsNamingTheKey) {
  ConfigNode model = large_model_section("baseline_large.yaml");
  model.find("bbox_head")->set("as_two_stage", parse_yaml("true", "override"));
  EXPECT_NE(large_build_error(model).find("as_two_stage"), std::string::npos);

  model = large_model_section("baseline_large.yaml");
  ConfigNode* layer = model.find("bev_constructor")->find("encoder")->find("transformerlayers");
  layer->set("operation_order", parse_yaml("[cross_attn, norm, self_attn, norm, ffn, norm]", "o"));
  EXPECT_NE(large_build_error(model).find("operation_order"), std::string::npos)
      << large_build_error(model);

  model = large_model_section("baseline_large.yaml");
  model.set("checkpoint", parse_yaml("[img_view_transformer]", "o"));
  EXPECT_NE(large_build_error(model).find("checkpoint"), std::string::npos)
      << large_build_error(model);

  model = large_model_section("baseline_large.yaml");
  model.find("pts_bbox_head")->set("code_size", parse_yaml("14", "o"));
  EXPECT_NE(large_build_error(model).find("code_size"), std::string::npos);
}

}  // namespace
}  // namespace olv2
