// BaselineLarge's backbone (frozen stem and layer1, BatchNorm on running statistics) and mmdet
// FPN (with its stride-2 extra level) against the original's module-boundary tensors.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "heads_fixture.h"
#include "olv2/models/backbones/resnet.h"
#include "olv2/models/necks/fpn.h"
#include "support/test_paths.h"

namespace olv2::test {
namespace {

// The fixture's reduced `img_backbone` / `img_neck` (fixtures README).
ResNetOptions large_fixture_backbone_options() {
  ResNetOptions o;
  o.depth = 18;
  o.base_channels = 32;
  o.stem_channels = 32;  // mmdet: the stem follows base_channels unless given
  o.out_indices = {1, 2, 3};
  o.frozen_stages = 1;
  o.norm.requires_grad = false;
  o.norm_eval = true;
  return o;
}

FpnOptions large_fixture_neck_options() {
  FpnOptions o;
  o.in_channels = {64, 128, 256};
  o.out_channels = 64;
  o.num_outs = 4;
  o.add_extra_convs = "on_output";
  o.relu_before_extra_convs = true;
  return o;
}

class LargeFeatures : public ::testing::Test {
 protected:
  void SetUp() override {
    OLV2_REQUIRE_FIXTURE(json_path, "baseline_large_losses.json");
    const auto dir = json_path.parent_path();
    state_ = load_tensor_dict(dir / "baseline_large_state_dict.pt");
    input_ = load_tensor_dict(dir / "baseline_large_input.pt");
    intermediates_ = load_tensor_dict(dir / "baseline_large_intermediates.pt");
    load_module_state(*backbone_, state_, "img_backbone.");
    load_module_state(*neck_, state_, "img_neck.");
  }

  void check(const std::string& pass) {
    const at::Tensor& img = at_key(input_, "img");
    const std::vector<at::Tensor> stages =
        backbone_->forward(img.view({-1, img.size(2), img.size(3), img.size(4)}));
    ASSERT_EQ(stages.size(), 3u);
    for (size_t i = 0; i < stages.size(); ++i) {
      const std::string key = pass + ".img_backbone." + std::to_string(i);
      expect_recorded(stages[i], intermediates_, key);
    }
    const std::vector<at::Tensor> levels = neck_->forward(stages);
    ASSERT_EQ(levels.size(), 4u);
    for (size_t i = 0; i < levels.size(); ++i) {
      const std::string key = pass + ".img_neck." + std::to_string(i);
      expect_recorded(levels[i], intermediates_, key);
    }
  }

  TensorMap state_, input_, intermediates_;
  ResNet backbone_{large_fixture_backbone_options()};
  Fpn neck_{large_fixture_neck_options()};
};

TEST_F(LargeFeatures, TrainPassUsesRunningStatisticsAndLeavesThemUnchanged) {
  backbone_->train();
  neck_->train();
  check("train");
  for (const auto& item : backbone_->named_buffers()) {
    const std::string key = "train.bn_running_after_forward.img_backbone." + item.key();
    if (intermediates_.count(key)) {
      EXPECT_TRUE(torch::equal(item.value(), at_key(intermediates_, key))) << key;
    }
  }
}

TEST_F(LargeFeatures, TestPassEqualsTheOriginal) {
  backbone_->eval();
  neck_->eval();
  torch::NoGradGuard no_grad;
  check("test");
}

TEST_F(LargeFeatures, OnlyStagesAfterTheFrozenOnesTrainAndBatchNormIsFrozen) {
  for (const auto& item : backbone_->named_parameters()) {
    const std::string& name = item.key();
    const bool frozen_stage =
        name.rfind("conv1.", 0) == 0 || name.rfind("bn1.", 0) == 0 || name.rfind("layer1.", 0) == 0;
    const bool norm =
        name.find("bn") != std::string::npos || name.find("downsample.1") != std::string::npos;
    EXPECT_EQ(item.value().requires_grad(), !frozen_stage && !norm) << name;
  }
}

}  // namespace
}  // namespace olv2::test
