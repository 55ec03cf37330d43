// The LR schedules against the golden tables of the original Python code:
// mmcv 1.5.2's CosineAnnealing with linear warm-up as EpochBasedRunner applies
// it, and DeepSpeed's warm-up schedules. Every row must be equal as a double
// (same libm, same operation order).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "olv2/config/config_json.h"
#include "olv2/solver/deepspeed_schedules.h"
#include "olv2/solver/mmcv_cosine_annealing.h"
#include "olv2/solver/param_groups.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// A module whose parameters carry the given dotted names (one scalar each).
struct NamedParams : torch::nn::Module {
  explicit NamedParams(const std::vector<std::string>& names) {
    for (const std::string& name : names) add(*this, name);
  }
  static void add(torch::nn::Module& module, const std::string& name) {
    const size_t dot = name.find('.');
    if (dot == std::string::npos) {
      module.register_parameter(name, torch::zeros({1}));
      return;
    }
    const std::string child = name.substr(0, dot);
    std::shared_ptr<torch::nn::Module> sub;
    for (const auto& item : module.named_children()) {
      if (item.key() == child) sub = item.value();
    }
    if (!sub) sub = module.register_module(child, std::make_shared<torch::nn::Module>());
    add(*sub, name.substr(dot + 1));
  }
};

ParamGroupRules rules_from(const nlohmann::json& optimizer_cfg) {
  ParamGroupRules rules;
  rules.base_lr = optimizer_cfg.at("lr").get<double>();
  rules.base_weight_decay = optimizer_cfg.value("weight_decay", 0.0);
  if (optimizer_cfg.contains("paramwise_cfg")) {
    for (const auto& [key, rule] : optimizer_cfg["paramwise_cfg"]["custom_keys"].items()) {
      rules.custom_keys.push_back({key, rule.value("lr_mult", 1.0), rule.value("decay_mult", 1.0)});
    }
  }
  return rules;
}

CosineAnnealingOptions cosine_options_from(const nlohmann::json& lr_config) {
  CosineAnnealingOptions options;
  options.by_epoch = lr_config.at("by_epoch").get<bool>();
  options.warmup = lr_config.at("warmup").get<std::string>();
  options.warmup_iters = lr_config.at("warmup_iters").get<int64_t>();
  options.warmup_ratio = lr_config.at("warmup_ratio").get<double>();
  options.warmup_by_epoch = lr_config.at("warmup_by_epoch").get<bool>();
  options.min_lr_ratio = lr_config.at("min_lr_ratio").get<double>();
  return options;
}

TEST(MmcvCosineAnnealing, EqualsEveryRowOfTheRunnerTables) {
  OLV2_REQUIRE_FIXTURE(path, "engine/mmcv_cosine_warmup.json");
  const nlohmann::json table = read_json(path);
  const CosineAnnealingOptions options = cosine_options_from(table.at("lr_config"));
  ASSERT_FALSE(table.at("cases").empty());
  for (const auto& [case_name, c] : table.at("cases").items()) {
    SCOPED_TRACE(case_name);
    // Groups and their initial lr as mmcv's DefaultOptimizerConstructor builds
    // them.
    std::vector<std::string> names;
    for (const auto& group : c.at("param_groups")) {
      for (const auto& name : group.at("params")) names.push_back(name.get<std::string>());
    }
    NamedParams model(names);
    const std::vector<ParamGroup> groups =
        build_param_groups(model.named_parameters(), rules_from(c.at("optimizer_cfg")));
    ASSERT_EQ(groups.size(), c.at("param_groups").size());
    std::vector<double> base_lrs;
    for (size_t g = 0; g < groups.size(); ++g) {
      const auto& expected = c.at("param_groups")[g];
      EXPECT_EQ(groups[g].names, expected.at("params").get<std::vector<std::string>>());
      EXPECT_EQ(groups[g].lr, expected.at("initial_lr").get<double>());
      base_lrs.push_back(groups[g].lr);
    }

    MmcvCosineAnnealing schedule(options, base_lrs, c.at("max_epochs").get<int64_t>(),
                                 c.at("iters_per_epoch").get<int64_t>());
    const auto& epochs = c.at("epoch");
    const auto& iters = c.at("iter");
    const auto& lr = c.at("lr");
    int64_t current_epoch = -1;
    size_t mismatches = 0;
    for (size_t i = 0; i < iters.size(); ++i) {
      const int64_t epoch = epochs[i].get<int64_t>();
      if (epoch != current_epoch) {
        schedule.begin_epoch(epoch);
        current_epoch = epoch;
      }
      schedule.begin_iteration(iters[i].get<int64_t>());
      for (size_t g = 0; g < groups.size(); ++g) {
        const double expected = lr[g][i].get<double>();
        if (schedule.lrs()[g] != expected && mismatches++ < 5) {
          ADD_FAILURE() << "iteration " << i << " group " << g << ": " << schedule.lrs()[g]
                        << " != " << expected;
        }
      }
    }
    EXPECT_EQ(mismatches, 0u);
  }
}

TEST(MmcvCosineAnnealing, ResumedStateContinuesTheSameValues) {
  CosineAnnealingOptions options;
  options.warmup = "linear";
  options.warmup_iters = 7;
  options.warmup_ratio = 1.0 / 3;
  options.min_lr_ratio = 1e-3;
  MmcvCosineAnnealing original(options, {1e-4, 1e-5}, 4, 3);
  original.begin_epoch(1);
  original.begin_iteration(4);
  MmcvCosineAnnealing resumed(options, {0.5, 0.5}, 4, 3);
  resumed.load_state(original.state());
  EXPECT_EQ(resumed.lrs(), original.lrs());
  original.begin_iteration(5);
  resumed.begin_iteration(5);
  EXPECT_EQ(resumed.lrs(), original.lrs());
}

// The schedule a DeepSpeed JSON's {"type": type, "params": params} names, through the registry.
std::shared_ptr<const DeepSpeedScheduleOptions> deepspeed_options_from(
    const std::string& type, const nlohmann::json& params) {
  const nlohmann::json section = {{"type", type}, {"params", params}};
  return deepspeed_schedule_registry().read(
      config_from_json(section, SourceLocation{"table.json", 0, 0}, "scheduler"));
}

TEST(DeepSpeedSchedule, EqualsEveryStepOfTheTables) {
  OLV2_REQUIRE_FIXTURE(path, "engine/deepspeed_schedules.json");
  const nlohmann::json table = read_json(path);
  const auto base = table.at("optimizer_group_lrs_before_scheduler").get<std::vector<double>>();
  ASSERT_GE(base.size(), 2u);
  std::vector<ScheduledGroup> groups;
  for (const double lr : base) groups.push_back({lr, lr / base[0]});
  ASSERT_FALSE(table.at("schedules").empty());
  for (const auto& [name, s] : table.at("schedules").items()) {
    SCOPED_TRACE(name);
    const std::string type = s.at("cls").get<std::string>();
    DeepSpeedSchedule schedule(deepspeed_options_from(type, s.at("params")), groups);
    const bool per_group_ratio = type == "WarmupCosineLR";
    // Optimizer step 0 uses what the constructor wrote (first group; see the
    // class comment).
    EXPECT_EQ(schedule.lrs()[0], s.at("init_lr")[0].get<double>());
    const auto& lr = s.at("lr");
    size_t mismatches = 0;
    for (size_t t = 0; t < lr[0].size(); ++t) {
      schedule.end_step(true);
      for (size_t g = 0; g < groups.size(); ++g) {
        // WarmupLR/WarmupDecayLR: DeepSpeed gives every group the first group's
        // value; here other groups keep their lr_mult.
        const double expected = per_group_ratio || g == 0
                                    ? lr[g][t].get<double>()
                                    : groups[g].lr_mult * lr[0][t].get<double>();
        if (schedule.lrs()[g] != expected && mismatches++ < 5) {
          ADD_FAILURE() << "step " << t << " group " << g << ": " << schedule.lrs()[g]
                        << " != " << expected;
        }
      }
    }
    EXPECT_EQ(mismatches, 0u);
  }
}

TEST(DeepSpeedSchedule, SkippedStepsDoNotAdvance) {
  const auto options =
      deepspeed_options_from("WarmupLR", {{"warmup_type", "linear"}, {"warmup_num_steps", 10}});
  DeepSpeedSchedule schedule(options, {{1e-3, 1.0}});
  schedule.end_step(true);
  const std::vector<double> after_one = schedule.lrs();
  schedule.end_step(false);
  EXPECT_EQ(schedule.lrs(), after_one);
  EXPECT_EQ(schedule.last_batch_iteration(), 0);
  DeepSpeedSchedule resumed(options, {{1e-3, 1.0}});
  resumed.load_state(schedule.state());
  schedule.end_step(true);
  resumed.end_step(true);
  EXPECT_EQ(resumed.lrs(), schedule.lrs());
}

}  // namespace
}  // namespace olv2
