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
  EXPECT_EQ(options.launch.launcher, "none");
  EXPECT_FALSE(options.launch.threads.has_value());
  EXPECT_EQ(options.launch.device, "");
  EXPECT_FALSE(options.launch.max_frames.has_value());
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
                                      "--device",
                                      "cpu",
                                      "--max-frames",
                                      "4",
                                      "--cfg-options",
                                      "a.b=1",
                                      "c=[1,2]"});
  EXPECT_EQ(options.work_dir, "w");
  EXPECT_EQ(options.resume_from, "auto");
  EXPECT_EQ(options.load_from, "l.pth");
  EXPECT_TRUE(options.no_validate);
  EXPECT_EQ(options.seed, std::optional<int64_t>(7));
  EXPECT_TRUE(options.deterministic);
  EXPECT_EQ(options.launch.launcher, "pytorch");
  EXPECT_EQ(options.launch.local_rank, 1);
  EXPECT_TRUE(options.use_ds);
  EXPECT_EQ(options.deepspeed_config, "ds.json");
  EXPECT_TRUE(options.use_fp16);
  EXPECT_EQ(options.launch.threads.value_or(0), 3);
  EXPECT_TRUE(options.print_config);
  EXPECT_EQ(options.launch.device, "cpu");
  EXPECT_EQ(options.launch.max_frames, std::optional<int64_t>(4));
  EXPECT_EQ(options.cfg_options, (std::vector<std::string>{"a.b=1", "c=[1,2]"}));
}

TEST(TrainOptions, DeepSpeedLauncherSpelling) {
  EXPECT_EQ(parse({"c.yaml", "--local_rank=3"}).launch.local_rank, 3);
  EXPECT_EQ(parse({"--local_rank=2", "c.yaml"}).launch.local_rank, 2);
}

// argparse users type underscores: every flag takes them, values stay as given.
TEST(TrainOptions, EveryFlagAlsoWithUnderscores) {
  const TrainOptions options =
      parse({"c.yaml", "--work_dir", "a_b", "--no_validate", "--max_frames=2", "--cfg_options",
             "data.skip_bad_frames=true", "--use_fp16"});
  EXPECT_EQ(options.work_dir, "a_b");
  EXPECT_TRUE(options.no_validate);
  EXPECT_EQ(options.launch.max_frames, std::optional<int64_t>(2));
  EXPECT_EQ(options.cfg_options, (std::vector<std::string>{"data.skip_bad_frames=true"}));
  EXPECT_TRUE(options.use_fp16);
}

TEST(TrainOptions, VersionNeedsNoConfig) {
  const char* args[] = {"train_ds", "--version"};
  testing::internal::CaptureStdout();
  const auto options = parse_train_options(2, args);
  const std::string printed = testing::internal::GetCapturedStdout();
  EXPECT_FALSE(options.has_value());
  EXPECT_EQ(printed.rfind("train_ds 0.1.0 (git ", 0), 0U) << printed;
  EXPECT_NE(printed.find("\nBLAS: "), std::string::npos) << printed;
}

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
  expect_bad({"c.yaml", "--launcher", "mpi"});
  expect_bad({"c.yaml", "--seed", "x"});
  expect_bad({"c.yaml", "--threads", "0"});
  expect_bad({"c.yaml", "--no-such-flag"});
  expect_bad({"c.yaml", "--device", "gpu"});
  expect_bad({"c.yaml", "--max-frames", "0"});
}

}  // namespace
}  // namespace olv2
