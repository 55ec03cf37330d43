// Parameter groups as mmcv's DefaultOptimizerConstructor, AdamW per group, global-norm
// clipping, and the solver sections of the config.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "olv2/config/config_loader.h"
#include "olv2/solver/adam.h"
#include "olv2/solver/grad_clip.h"
#include "olv2/solver/lr_scheduler.h"
#include "olv2/solver/mmcv_cosine_annealing.h"
#include "olv2/solver/param_groups.h"
#include "olv2/solver/solver_config.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

TEST(CustomKeys, SortedLongestFirstThenAlphabetically) {
  const std::vector<CustomKeyRule> sorted =
      sorted_custom_keys({{"b", 1, 1}, {"backbone", 1, 1}, {"a", 1, 1}, {"neck", 1, 1}});
  std::vector<std::string> keys;
  for (const auto& rule : sorted) keys.push_back(rule.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"backbone", "neck", "a", "b"}));
}

TEST(CustomKeys, LongestMatchingSubstringWins) {
  const auto sorted =
      sorted_custom_keys({{"backbone", 0.1, 1.0}, {"backbone.layer1", 0.0, 0.5}, {"bias", 2, 0}});
  EXPECT_EQ(match_custom_key("img_backbone.layer1.conv.weight", sorted)->key, "backbone.layer1");
  EXPECT_EQ(match_custom_key("img_backbone.layer2.conv.bias", sorted)->key, "backbone");
  EXPECT_EQ(match_custom_key("head.bias", sorted)->key, "bias");
  EXPECT_FALSE(match_custom_key("head.weight", sorted).has_value());
  // mmcv matches a root module's own parameter as ".name": "bias" matches ".bias".
  EXPECT_EQ(match_custom_key("bias", sorted_custom_keys({{".bias", 1, 1}}))->key, ".bias");
  EXPECT_FALSE(match_custom_key("head.weight", sorted_custom_keys({{".bias", 1, 1}})).has_value());
}

struct TinyModel : torch::nn::Module {
  TinyModel() {
    backbone = register_module("img_backbone", torch::nn::Linear(2, 2));
    head = register_module("head", torch::nn::Linear(2, 1));
    frozen = register_module("frozen", torch::nn::Linear(2, 2));
    for (auto& p : frozen->parameters()) p.set_requires_grad(false);
  }
  torch::nn::Linear backbone{nullptr}, head{nullptr}, frozen{nullptr};
};

TEST(ParamGroups, MultipliersApplyAndFrozenParametersAreLeftOut) {
  TinyModel model;
  ParamGroupRules rules;
  rules.base_lr = 2e-4;
  rules.base_weight_decay = 0.01;
  rules.custom_keys = {{"img_backbone", 0.1, 0.5}};
  const std::vector<ParamGroup> groups = build_param_groups(model.named_parameters(), rules);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].names,
            (std::vector<std::string>{"img_backbone.weight", "img_backbone.bias"}));
  EXPECT_EQ(groups[0].lr, 2e-4 * 0.1);
  EXPECT_EQ(groups[0].weight_decay, 0.01 * 0.5);
  EXPECT_EQ(groups[1].names, (std::vector<std::string>{"head.weight", "head.bias"}));
  EXPECT_EQ(groups[1].lr, 2e-4);
  EXPECT_EQ(groups[1].weight_decay, 0.01);

  AdamOptions adam;
  adam.lr = rules.base_lr;
  auto optimizer = adam.build(groups);
  EXPECT_EQ(group_lrs(*optimizer), (std::vector<double>{2e-4 * 0.1, 2e-4}));
  set_group_lrs(*optimizer, {1.0, 2.0});
  EXPECT_EQ(group_lrs(*optimizer), (std::vector<double>{1.0, 2.0}));
  EXPECT_THROW(set_group_lrs(*optimizer, {1.0}), Error);
}

// A branch shared by several decoder layers (mmdet's heads without box refinement) is one
// tensor under several names: it is optimised once, under its first name.
TEST(ParamGroups, ASharedModuleIsOptimisedOnce) {
  struct Shared : torch::nn::Module {
    Shared() {
      torch::nn::Linear branch(2, 2);
      branches = register_module("branches", torch::nn::ModuleList(branch, branch));
    }
    torch::nn::ModuleList branches{nullptr};
  } model;
  ASSERT_EQ(model.named_parameters().size(), 4u);
  const std::vector<ParamGroup> groups = build_param_groups(model.named_parameters(), {});
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].names, (std::vector<std::string>{"branches.0.weight", "branches.0.bias"}));
}

TEST(Optimizer, AdamWStepFollowsTheDecoupledUpdate) {
  torch::Tensor w = torch::tensor({1.0, -2.0}, torch::kDouble).set_requires_grad(true);
  ParamGroup group;
  group.params = {w};
  group.lr = 0.1;
  group.weight_decay = 0.5;
  AdamOptions adam;
  auto optimizer = adam.build({group});
  w.mutable_grad() = torch::tensor({0.5, 0.25}, torch::kDouble);
  optimizer->step();
  // Step 1: θ·(1 − lr·wd) − lr · m̂ / (√v̂ + eps) with m̂ = g, √v̂ = |g|.
  const double eps = 1e-8;
  EXPECT_NEAR(w[0].item<double>(), 1.0 * (1 - 0.05) - 0.1 * 0.5 / (0.5 + eps), 1e-12);
  EXPECT_NEAR(w[1].item<double>(), -2.0 * (1 - 0.05) - 0.1 * 0.25 / (0.25 + eps), 1e-12);
}

TEST(GradClip, ScalesToMaxNormAndReturnsTheNormBefore) {
  torch::Tensor a = torch::zeros({2}, torch::requires_grad());
  torch::Tensor b = torch::zeros({1}, torch::requires_grad());
  torch::Tensor unused = torch::zeros({1}, torch::requires_grad());
  a.mutable_grad() = torch::tensor({3.0f, 0.0f});
  b.mutable_grad() = torch::tensor({4.0f});
  GradClipOptions options;
  options.max_norm = 1.0;
  EXPECT_FLOAT_EQ(static_cast<float>(clip_grad_norm({a, b, unused}, options)), 5.0f);
  EXPECT_NEAR(a.grad()[0].item<float>(), 3.0f / (5.0f + 1e-6f), 1e-7);
  EXPECT_NEAR(b.grad()[0].item<float>(), 4.0f / (5.0f + 1e-6f), 1e-7);
  options.max_norm = 35.0;  // below max_norm: untouched
  const torch::Tensor before = a.grad().clone();
  clip_grad_norm({a, b}, options);
  EXPECT_TRUE(torch::equal(a.grad(), before));
  EXPECT_EQ(clip_grad_norm({unused}, options), 0.0);
}

TEST(SolverConfig, ReadsOptimizerClipAndSchedule) {
  const ConfigNode root = parse_yaml(R"(
optimizer:
  type: AdamW
  lr: 2.0e-4
  weight_decay: 0.01
  betas: [0.8, 0.99]
  paramwise_cfg:
    custom_keys:
      img_backbone: {lr_mult: 0.1}
optimizer_config:
  grad_clip: {max_norm: 35, norm_type: 2}
lr_config:
  policy: CosineAnnealing
  warmup: linear
  warmup_iters: 500
  warmup_ratio: 0.3333333333333333
  min_lr_ratio: 1.0e-3
)",
                                     "cfg.yaml");
  const SolverOptions options =
      SolverOptions::from_config(root.at("optimizer"), root.find("optimizer_config"));
  const auto& adam = dynamic_cast<const AdamOptions&>(*options.optimizer);
  EXPECT_EQ(adam.lr, 2e-4);
  EXPECT_EQ(adam.betas[0], 0.8);
  EXPECT_TRUE(adam.decoupled_weight_decay);
  ASSERT_EQ(adam.custom_keys.size(), 1u);
  EXPECT_EQ(adam.custom_keys[0].lr_mult, 0.1);
  ASSERT_TRUE(options.grad_clip.has_value());
  EXPECT_EQ(options.grad_clip->max_norm, 35.0);
  const CosineAnnealingOptions cosine = CosineAnnealingOptions::from_config(root.at("lr_config"));
  EXPECT_EQ(cosine.warmup, "linear");
  EXPECT_EQ(cosine.warmup_iters, 500);
  EXPECT_EQ(*cosine.min_lr_ratio, 1e-3);
}

// `optimizer.type` chooses a registered optimizer, each with torch's defaults: Adam adds the
// weight decay to the gradient (none by default), AdamW decays the weights.
TEST(SolverConfig, TheOptimizerTypeChoosesARegisteredOptimizer) {
  const ConfigNode root = parse_yaml(
      "adam: {type: Adam, lr: 0.1}\n"
      "rmsprop: {type: RMSprop, lr: 0.1}\n",
      "opt.yaml");
  const auto options = optimizer_registry().read(root.at("adam"));
  const auto& adam = dynamic_cast<const AdamOptions&>(*options);
  EXPECT_FALSE(adam.decoupled_weight_decay);
  EXPECT_EQ(adam.weight_decay, 0.0);
  torch::Tensor w = torch::tensor({1.0}, torch::kDouble).set_requires_grad(true);
  ParamGroup group;
  group.params = {w};
  group.lr = 0.1;
  auto optimizer = options->build({group});
  EXPECT_NE(dynamic_cast<torch::optim::Adam*>(optimizer.get()), nullptr);
  try {
    optimizer_registry().read(root.at("rmsprop"));
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("opt.yaml:2:"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what())
                  .find("unknown optimizer type `RMSprop` (expected one of: Adam, AdamW, SGD)"),
              std::string::npos)
        << error.what();
  }
}

TEST(SolverConfig, TheLrPolicyChoosesARegisteredSchedule) {
  const ConfigNode root = parse_yaml(
      "lr_config: {policy: CosineAnnealing, min_lr_ratio: 0.001}\n"
      "step: {policy: step, step: [8, 11]}\n",
      "lr.yaml");
  const auto schedule = lr_schedule_registry().read(root.at("lr_config"));
  ASSERT_NE(dynamic_cast<const CosineAnnealingOptions*>(schedule.get()), nullptr);
  ParamGroup group;
  group.lr = 2e-4;
  const std::unique_ptr<LrScheduler> scheduler = schedule->build({group}, 24, 100);
  EXPECT_EQ(scheduler->name(), "CosineAnnealing");
  const std::vector<std::string> problems =
      lr_schedule_registry().schema().problems(root.at("step"));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("lr.yaml:2:"), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("unknown LR schedule"), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("CosineAnnealing"), std::string::npos) << problems[0];
}

TEST(SolverConfig, RejectsWhatMmcvRejects) {
  const ConfigNode no_wd = parse_yaml(
      "optimizer: {type: AdamW, lr: 1.0, paramwise_cfg: {custom_keys: {a: {decay_mult: 0.5}}}}",
      "a.yaml");
  EXPECT_THROW(SolverOptions::from_config(no_wd.at("optimizer"), nullptr), Error);
  const ConfigNode both =
      parse_yaml("lr_config: {policy: CosineAnnealing, min_lr: 0.0, min_lr_ratio: 0.1}", "b.yaml");
  try {
    CosineAnnealingOptions::from_config(both.at("lr_config"));
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), ExitStatus::kBadInput);
    EXPECT_NE(std::string(error.what()).find("b.yaml:1:"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace olv2
