#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdlib>
#include <fstream>

#include "olv2/config/config_loader.h"
#include "olv2/models/build.h"
#include "olv2/models/detectors/baseline.h"
#include "olv2/models/pretrained_checkpoint.h"
#include "olv2/util/error.h"
#include "olv2/util/pth/pth_file.h"
#include "olv2/util/state_dict.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

ConfigNode fixture_model_section() {
  ConfigNode root = load_config_file(test::source_dir() / "configs" / "fixtures" / "baseline.yaml");
  return root.at("model");
}

std::string error_of(const std::function<void()>& action, ExitStatus* status = nullptr) {
  try {
    action();
  } catch (const Error& error) {
    if (status != nullptr) *status = error.status();
    return error.what();
  }
  return "";
}

TEST(ModelBuild, TheShippedConfigBuildsABaseline) {
  const ConfigNode model = fixture_model_section();
  std::shared_ptr<DetectorImpl> detector = build_detector(model);
  auto* baseline = dynamic_cast<BaselineImpl*>(detector.get());
  ASSERT_NE(baseline, nullptr);
  const auto& backbone = dynamic_cast<const ResNetOptions&>(*baseline->options().img_backbone);
  EXPECT_EQ(backbone.depth, model.at("img_backbone").at("depth").as_int());
  const auto& lc_head = dynamic_cast<const CustomDetrHeadOptions&>(*baseline->options().lc_head);
  EXPECT_EQ(lc_head.num_query, model.at("lc_head").at("num_query").as_int());
  EXPECT_EQ(baseline->options().te_head->objects(), AssignedObjects::kBoxes);
}

// The BEV range pictures are drawn over comes from the model's own options.
TEST(ModelBuild, TheBevRangeComesFromEitherModelsOptions) {
  const ConfigNode baseline = load_config_file(test::source_dir() / "configs/baseline.yaml");
  EXPECT_EQ(detector_bev_range(baseline.at("model")),
            (BevRange{-50.0, -25.0, -3.0, 50.0, 25.0, 2.0}));
  const ConfigNode large = load_config_file(test::source_dir() / "configs/baseline_large.yaml");
  EXPECT_EQ(detector_bev_range(large.at("model")), (BevRange{-51.2, -25.6, -2.3, 51.2, 25.6, 1.7}));
  try {
    detector_bev_range(parse_yaml("type: Detr3D", "model.yaml"));
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("model type `Detr3D`"), std::string::npos)
        << error.what();
  }
}

TEST(ModelBuild, UnknownKeysAndStagesAreInputErrorsWithTheirLocation) {
  ConfigNode model = fixture_model_section();
  ConfigNode& neck = *model.find("img_neck");
  neck.set("out_channel", ConfigNode::scalar("7", {"edited.yaml", 3, 5}));
  ExitStatus status = ExitStatus::kSuccess;
  const std::string message = error_of([&] { BaselineOptions::from_config(model); }, &status);
  EXPECT_EQ(status, ExitStatus::kBadInput);
  EXPECT_NE(message.find("out_channel"), std::string::npos) << message;

  ConfigNode staged = fixture_model_section();
  ConfigNode stages = ConfigNode::sequence({});
  stages.push_back(ConfigNode::scalar("lc_head", {}));
  staged.set("checkpoint", stages);
  EXPECT_NE(error_of([&] { BaselineOptions::from_config(staged); }).find("lc_head"),
            std::string::npos);
}

TEST(ModelBuild, TorchvisionCheckpointsResolveUnderTorchHome) {
  const auto home = test::scratch_dir("model_build_torch_home");
  ASSERT_EQ(setenv("TORCH_HOME", home.c_str(), 1), 0);
  ExitStatus status = ExitStatus::kSuccess;
  const std::string message =
      error_of([] { resolve_pretrained_checkpoint("torchvision://resnet18"); }, &status);
  EXPECT_EQ(status, ExitStatus::kBadInput);
  EXPECT_NE(message.find((home / "hub" / "checkpoints" / "resnet18-*.pth").string()),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("model.img_backbone.init_cfg=null"), std::string::npos) << message;

  std::filesystem::create_directories(home / "hub" / "checkpoints");
  const auto file = home / "hub" / "checkpoints" / "resnet18-0123abcd.pth";
  std::ofstream(file) << "x";
  EXPECT_EQ(resolve_pretrained_checkpoint("torchvision://resnet18"), file);
  EXPECT_NE(error_of([] { resolve_pretrained_checkpoint("torchvision://resnet50"); }), "");
  unsetenv("TORCH_HOME");
}

TEST(ModelBuild, PretrainedBackboneWeightsAreLoadedNonStrictly) {
  ConfigNode model = fixture_model_section();
  // A torchvision-style file: backbone keys without prefix, plus a classifier to be ignored.
  BaselineImpl reference(BaselineOptions::from_config(model));
  NamedTensors file_tensors;
  for (const auto& [name, tensor] : module_state_dict(*reference.img_backbone())) {
    file_tensors.emplace_back(name, torch::randn_like(tensor.to(torch::kFloat)).to(tensor.dtype()));
  }
  file_tensors.emplace_back("fc.weight", torch::zeros({10, 4}));
  const auto file = test::scratch_dir("model_build_pretrained") / "backbone.pth";
  write_pth(file, to_pth_value(file_tensors));

  ConfigNode init = ConfigNode::map({});
  init.set("type", ConfigNode::scalar("Pretrained", {}));
  init.set("checkpoint", ConfigNode::scalar(file.string(), {}));
  model.find("img_backbone")->set("init_cfg", init);
  std::shared_ptr<DetectorImpl> detector = build_detector(model);
  auto* baseline = dynamic_cast<BaselineImpl*>(detector.get());
  ASSERT_NE(baseline, nullptr);
  const NamedTensors loaded = module_state_dict(*baseline->img_backbone());
  for (size_t i = 0; i < loaded.size(); ++i) {
    EXPECT_TRUE(torch::equal(loaded[i].second, file_tensors[i].second)) << loaded[i].first;
  }
}

}  // namespace
}  // namespace olv2
