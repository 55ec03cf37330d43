#include "olv2/models/backbones/resnet.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "olv2/util/state_dict.h"

namespace olv2 {
namespace {

ResNetOptions small(int64_t depth) {
  ResNetOptions options;
  options.depth = depth;
  options.base_channels = 8;
  options.stem_channels = 8;
  return options;
}

TEST(ResNet, Depth50UsesBottlenecksWithMmdetNames) {
  ResNet net(small(50));
  const NamedTensors state = module_state_dict(*net);
  std::vector<std::string> keys;
  for (const auto& entry : state) keys.push_back(entry.first);
  // Own parameters, own buffers, then children: conv1, bn1 (weight, bias, running stats), layer1...
  ASSERT_GE(keys.size(), 8u);
  EXPECT_EQ(keys[0], "conv1.weight");
  EXPECT_EQ(keys[1], "bn1.weight");
  EXPECT_EQ(keys[5], "bn1.num_batches_tracked");
  EXPECT_EQ(keys[6], "layer1.0.conv1.weight");
  auto has = [&](const std::string& key) {
    return std::find(keys.begin(), keys.end(), key) != keys.end();
  };
  EXPECT_TRUE(has("layer1.0.conv3.weight"));
  EXPECT_TRUE(has("layer1.0.downsample.0.weight"));  // 8 -> 32 channels needs a projection
  EXPECT_TRUE(has("layer3.5.bn3.running_var"));      // 6 blocks in stage 3
  EXPECT_FALSE(has("layer3.6.conv1.weight"));
  EXPECT_EQ(net->stage_channels(), (std::vector<int64_t>{32, 64, 128, 256}));

  net->eval();
  const std::vector<at::Tensor> outs = net->forward(torch::randn({1, 3, 64, 64}));
  ASSERT_EQ(outs.size(), 4u);
  EXPECT_EQ(outs[0].sizes(), (std::vector<int64_t>{1, 32, 16, 16}));
  EXPECT_EQ(outs[3].sizes(), (std::vector<int64_t>{1, 256, 2, 2}));
  // pytorch style: the stride sits on the 3x3 conv of a bottleneck.
  for (const auto& item : net->named_modules()) {
    if (item.key() == "layer2.0.conv2") {
      EXPECT_EQ((*item.value()->as<torch::nn::Conv2d>()->options.stride())[0], 2);
    }
  }
}

TEST(ResNet, Depth18OutputsSelectedStagesInStageOrder) {
  ResNetOptions options = small(18);
  options.out_indices = {3, 1};
  ResNet net(options);
  net->eval();
  const std::vector<at::Tensor> outs = net->forward(torch::randn({2, 3, 64, 96}));
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[0].sizes(), (std::vector<int64_t>{2, 16, 8, 12}));
  EXPECT_EQ(outs[1].sizes(), (std::vector<int64_t>{2, 64, 2, 3}));
}

TEST(ResNet, MmdetInitialisationZeroesTheLastNormOfEveryBlock) {
  ResNet net(small(18));
  for (const auto& item : net->named_parameters()) {
    const std::string& name = item.key();
    if (name.find("bn2.") != std::string::npos) {
      EXPECT_EQ(item.value().abs().sum().item<double>(), 0.0) << name;
    } else if (name.find("bn1.weight") != std::string::npos) {
      EXPECT_TRUE(torch::equal(item.value(), torch::ones_like(item.value()))) << name;
    }
  }
  // Kaiming normal, fan_out, ReLU gain: std = sqrt(2 / (out * k * k)).
  const at::Tensor w = net->named_parameters()["layer4.0.conv1.weight"];
  const double expected = std::sqrt(2.0 / (w.size(0) * 9));
  EXPECT_NEAR(w.std().item<double>(), expected, 0.1 * expected);
}

TEST(ResNet, FrozenStagesAndNormEvalFollowMmdet) {
  ResNetOptions options = small(18);
  options.frozen_stages = 1;
  options.norm_eval = true;
  ResNet net(options);
  net->train();
  for (const auto& item : net->named_parameters()) {
    const bool frozen = item.key().rfind("conv1.", 0) == 0 || item.key().rfind("bn1.", 0) == 0 ||
                        item.key().rfind("layer1.", 0) == 0;
    EXPECT_EQ(item.value().requires_grad(), !frozen) << item.key();
  }
  for (const auto& item : net->named_modules()) {
    if (item.value()->as<BatchNorm2dLayer>() != nullptr) {
      EXPECT_FALSE(item.value()->is_training()) << item.key();
    }
  }
  // Running statistics stay put in training mode when norm_eval is on.
  const at::Tensor before = net->named_buffers()["layer2.0.bn1.running_mean"].clone();
  net->forward(torch::randn({2, 3, 32, 32}));
  EXPECT_TRUE(torch::equal(before, net->named_buffers()["layer2.0.bn1.running_mean"]));
}

TEST(ResNet, CheckpointedBlocksGiveTheSameGradientsAndUpdateNormsTwice) {
  auto run = [](bool with_cp) {
    ResNetOptions options = small(18);
    options.with_cp = with_cp;
    options.norm_eval = false;
    torch::manual_seed(1);
    ResNet net(options);
    // Non-trivial residual branches: the default init zeroes them.
    torch::NoGradGuard no_grad;
    for (auto& p : net->parameters()) p.add_(torch::randn_like(p) * 0.05);
    return net;
  };
  ResNet plain = run(false), checkpointed = run(true);
  torch::manual_seed(2);
  const at::Tensor x = torch::randn({2, 3, 32, 32});
  for (ResNet* net : {&plain, &checkpointed}) {
    (*net)->train();
    const std::vector<at::Tensor> outs = (*net)->forward(x);
    (outs.front().sum() + outs.back().pow(2).sum()).backward();
  }
  const auto ours = checkpointed->named_parameters();
  for (const auto& item : plain->named_parameters()) {
    // Equal up to float rounding: the residual gradients are summed in another order.
    const at::Tensor& a = item.value().grad();
    const double scale = a.abs().max().item<double>();
    EXPECT_GT(scale, 0.0) << item.key();
    EXPECT_LE((a - ours[item.key()].grad()).abs().max().item<double>(), 1e-5 * scale) << item.key();
  }
  const auto plain_buffers = plain->named_buffers();
  const auto cp_buffers = checkpointed->named_buffers();
  EXPECT_EQ(plain_buffers["layer1.0.bn1.num_batches_tracked"].item<int64_t>(), 1);
  EXPECT_EQ(cp_buffers["layer1.0.bn1.num_batches_tracked"].item<int64_t>(), 2);
  EXPECT_EQ(cp_buffers["bn1.num_batches_tracked"].item<int64_t>(),
            1);  // the stem is not checkpointed
}

}  // namespace
}  // namespace olv2
