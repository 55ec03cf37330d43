#include "cli/train_ds_options.h"

#include <gtest/gtest.h>

#include "olv2/util/error.h"

namespace olv2 {
namespace {

TrainOptions parse(std::vector<const char*> args) {
  args.insert(args.begin(), "train_ds");
  auto options = parse_train_options(static_cast<int>(args.size()), args.data());
  EXPECT_TRUE(options.has_value());
  return *options;
}

TEST(TrainOptions, Defaults) {
  const TrainOptions options = parse({"configs/baseline.yaml"});
  EXPECT_EQ(options.config_path, "configs/baseline.yaml");
  EXPECT_EQ(options.work_dir, "work_dirs/baseline");
  EXPECT_FALSE(options.seed.has_value());
  EXPECT_EQ(options.launcher, "none");
  EXPECT_FALSE(options.threads.has_value());
  EXPECT_FALSE(options.use_fp16);
  EXPECT_FALSE(options.use_ds);
  EXPECT_FALSE(options.no_validate);
  EXPECT_FALSE(options.deterministic);
}

TEST(TrainOptions, EveryFlag) {
  const TrainOptions options = parse({"c.yaml",
                                      "--work-dir",
                                      "w",
                                      "--resume-from",
                                      "auto",
                                      "--load-from",
                                      "l.pth",
                                      "--no-validate",
                                      "--seed",
                                      "7",
                                      "--deterministic",
                                      "--launcher",
                                      "pytorch",
                                      "--local-rank",
                                      "1",
                                      "--use-ds",
                                      "--deepspeed-config",
                                      "ds.json",
                                      "--use-fp16",
                                      "--threads",
                                      "3",
                                      "--print-config",
                                      "--cfg-options",
                                      "a.b=1",
                                      "c=[1,2]"});
  EXPECT_EQ(options.work_dir, "w");
  EXPECT_EQ(options.resume_from, "auto");
  EXPECT_EQ(options.load_from, "l.pth");
  EXPECT_TRUE(options.no_validate);
  EXPECT_EQ(options.seed, std::optional<int64_t>(7));
  EXPECT_TRUE(options.deterministic);
  EXPECT_EQ(options.launcher, "pytorch");
  EXPECT_EQ(options.local_rank, 1);
  EXPECT_TRUE(options.use_ds);
  EXPECT_EQ(options.deepspeed_config, "ds.json");
  EXPECT_TRUE(options.use_fp16);
  EXPECT_EQ(options.threads.value_or(0), 3);
  EXPECT_TRUE(options.print_config);
  EXPECT_EQ(options.cfg_options, (std::vector<std::string>{"a.b=1", "c=[1,2]"}));
}

TEST(TrainOptions, DeepSpeedLauncherSpelling) {
  EXPECT_EQ(parse({"c.yaml", "--local_rank=3"}).local_rank, 3);
  EXPECT_EQ(parse({"--local_rank=2", "c.yaml"}).local_rank, 2);
}

TEST(TrainOptions, VersionNeedsNoConfig) { EXPECT_TRUE(parse({"--version"}).print_version); }

TEST(TrainOptions, BadInvocationsAreInputErrors) {
  const auto expect_bad = [](std::vector<const char*> args) {
    args.insert(args.begin(), "train_ds");
    try {
      parse_train_options(static_cast<int>(args.size()), args.data());
      ADD_FAILURE() << "accepted a bad invocation";
    } catch (const Error& error) {
      EXPECT_EQ(error.status(), ExitStatus::kBadInput);
    }
  };
  expect_bad({});
  expect_bad({"c.yaml", "--launcher", "slurm"});
  expect_bad({"c.yaml", "--seed", "x"});
  expect_bad({"c.yaml", "--threads", "0"});
  expect_bad({"c.yaml", "--no-such-flag"});
}

}  // namespace
}  // namespace olv2
