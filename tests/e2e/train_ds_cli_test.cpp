// Runs the built `train_ds` binary as a user would.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "olv2/config/config_loader.h"
#include "support/python_yaml.h"
#include "support/run_command.h"
#include "support/temp_files.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

using test::run_app;

std::string config(const std::string& name) {
  return (test::source_dir() / "configs" / name).string();
}

TEST(TrainDsCli, PrintConfigPrintsEveryValueOfTheOriginalBaseline) {
  const auto result = run_app("train_ds", config("baseline.yaml") + " --print-config");
  ASSERT_EQ(result.exit_status, 0) << result.output;
  const ConfigNode printed = parse_yaml(result.output, "printed");
  EXPECT_EQ(printed.at("_dim_").as_int(), 128);
  EXPECT_EQ(printed.at("model").at("img_neck").at("in_channels").as_vector<int64_t>(),
            (std::vector<int64_t>{256, 512}));
  EXPECT_EQ(printed.at("model").at("lc_head").at("num_reg_dim").as_int(), 15);
  EXPECT_DOUBLE_EQ(printed.at("lr_config").at("warmup_ratio").as_double(), 1.0 / 3.0);
  EXPECT_EQ(printed.at("data").at("test").at("pipeline").size(), 6u);
  EXPECT_EQ(printed.at("log_config").at("hooks")[1].at("type").as_string(),
            "TensorboardLoggerHook");
  EXPECT_TRUE(printed.at("load_from").is_null());
}

// Python tools read the printed (and work-dir) config with yaml.safe_load: same values, types
// included (1e-4 must not turn into a string, nor "1e-05" into a float).
TEST(TrainDsCli, PrintedConfigReadsBackInPyYamlWithTheSameValues) {
  OLV2_REQUIRE_PYTHON_YAML();
  // baseline.yaml itself holds -50.0 (once printed as -5e+01, a string to YAML 1.1).
  const std::vector<std::string> overrides = {"optimizer.lr=1e-5", "data_root=\"1e-05\""};
  const auto result = run_app("train_ds", config("baseline.yaml") +
                                              " --print-config --cfg-options optimizer.lr=1e-5 "
                                              "data_root='\"1e-05\"'");
  ASSERT_EQ(result.exit_status, 0) << result.output;
  const std::filesystem::path printed = test::scratch_dir("printed") / "printed.yaml";
  std::ofstream(printed) << result.output;
  ConfigNode expected = load_config_file(config("baseline.yaml"));
  apply_config_overrides(expected, overrides);
  const nlohmann::json values = test::python_yaml_values(printed);
  if (!values.is_null()) test::expect_same_values(expected, values);
}

TEST(TrainDsCli, BaseFilesLayerOverTheBaseline) {
  const auto result = run_app("train_ds", config("baseline_cpu.yaml") + " --print-config");
  ASSERT_EQ(result.exit_status, 0) << result.output;
  const ConfigNode printed = parse_yaml(result.output, "printed");
  EXPECT_EQ(printed.at("data").at("samples_per_gpu").as_int(), 1);
  EXPECT_EQ(printed.at("data").at("gradient_accumulation_steps").as_int(), 1);
  EXPECT_EQ(printed.at("runner").at("max_epochs").as_int(), 20);
}

TEST(TrainDsCli, CfgOptionsChangeTheResolvedConfig) {
  const auto result =
      run_app("train_ds", config("baseline.yaml") +
                              " --print-config --cfg-options optimizer.lr=0.0002 data_root=/x");
  ASSERT_EQ(result.exit_status, 0) << result.output;
  const ConfigNode printed = parse_yaml(result.output, "printed");
  EXPECT_DOUBLE_EQ(printed.at("optimizer").at("lr").as_double(), 0.0002);
  EXPECT_EQ(printed.at("data_root").as_string(), "/x");
}

TEST(TrainDsCli, MisspeltKeyExitsTwoNamingLineKeyAndSuggestion) {
  const auto dir = test::scratch_dir("misspelt");
  const auto file = test::write_text(
      dir, "bad.yaml",
      "_base_: " + config("baseline.yaml") + "\nlr_confg:\n  policy: CosineAnnealing\n");
  const auto result = run_app("train_ds", file.string() + " --print-config");
  EXPECT_EQ(result.exit_status, 2) << result.output;
  EXPECT_NE(result.output.find(file.string() + ":2:1: unknown key `lr_confg`"), std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("did you mean `lr_config`"), std::string::npos) << result.output;
}

TEST(TrainDsCli, IllTypedOverrideExitsTwo) {
  const auto result = run_app(
      "train_ds", config("baseline.yaml") + " --print-config --cfg-options runner.max_epochs=many");
  EXPECT_EQ(result.exit_status, 2) << result.output;
  EXPECT_NE(result.output.find("runner.max_epochs"), std::string::npos) << result.output;
}

TEST(TrainDsCli, MissingConfigAndBadFlagsExitTwo) {
  EXPECT_EQ(run_app("train_ds", "").exit_status, 2);
  EXPECT_EQ(run_app("train_ds", "/nonexistent.yaml").exit_status, 2);
  EXPECT_EQ(run_app("train_ds", config("baseline.yaml") + " --launcher slurm").exit_status, 2);
}

// A file a flag names is checked before any work (no environment block, no work dir), named
// with its flag and, when relative, the folder it was looked up in; the program is named once.
TEST(TrainDsCli, AMissingCheckpointOrJsonIsNamedWithItsFlagBeforeAnyWork) {
  const std::filesystem::path dir = test::scratch_dir("missing_files");
  const std::string work_dir = " --work-dir '" + (dir / "work").string() + "'";
  for (const std::string flag : {"--load-from", "--resume-from"}) {
    SCOPED_TRACE(flag);
    const auto result =
        run_app("train_ds", config("demo.yaml") + work_dir + " " + flag + " nosuch.pth");
    EXPECT_EQ(result.exit_status, 2) << result.output;
    EXPECT_NE(result.output.find("train_ds: error: " + flag + " nosuch.pth"), std::string::npos)
        << result.output;
    EXPECT_NE(result.output.find("no such file `nosuch.pth` in /"), std::string::npos)
        << result.output;
    EXPECT_EQ(result.output.find("Environment info"), std::string::npos) << result.output;
  }
  const auto json = run_app(
      "train_ds", config("demo.yaml") + work_dir + " --use-ds --deepspeed-config nosuch.json");
  EXPECT_EQ(json.exit_status, 2) << json.output;
  EXPECT_NE(json.output.find("train_ds: error: --deepspeed-config nosuch.json: no such file"),
            std::string::npos)
      << json.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "work"));
}

// A collection file that is not where the config says names the key, the folder it was looked
// up from and the keys that point at the data.
TEST(TrainDsCli, AMissingCollectionNamesDataRootAndMetaRoot) {
  const std::filesystem::path dir = test::scratch_dir("missing_collection");
  const auto result =
      run_app("train_ds", config("demo.yaml") + " --work-dir '" + (dir / "work").string() +
                              "' --cfg-options data_root=nowhere meta_root=nowhere");
  EXPECT_EQ(result.exit_status, 2) << result.output;
  for (const char* part :
       {"key `data.train.collection`", "collection file nowhere/data_dict_synthetic.json not found",
        "relative to the current folder /", "`data_root` and `meta_root`"}) {
    EXPECT_NE(result.output.find(part), std::string::npos) << part << "\n" << result.output;
  }
}

// TopoNet's `ann_file` names a pickle; the collection JSON beside it is what is read, and a
// missing one is named with the key and where it was looked for. A lane-segment pickle (v2.x
// frames) is refused by the centerline models' datasets, naming the key.
TEST(TrainDsCli, AMissingCollectionBesideTopoNetsAnnFileIsNamed) {
  const std::filesystem::path dir = test::scratch_dir("missing_ann_file_collection");
  const auto result = run_app("train_ds", config("toponet_r50_8x1_24e_olv2_subset_A.yaml") +
                                              " --work-dir '" + (dir / "work").string() +
                                              "' --cfg-options model.img_backbone.init_cfg=null");
  EXPECT_EQ(result.exit_status, 2) << result.output;
  for (const char* part : {"key `data.train.ann_file`",
                           "data/OpenLane-V2/data_dict_subset_A_train.pkl is read as the "
                           "collection it was made from, "
                           "data/OpenLane-V2/data_dict_subset_A.json, which is not there",
                           "--cfg-options data.train.ann_file=DIR/data_dict_subset_A_train.pkl"}) {
    EXPECT_NE(result.output.find(part), std::string::npos) << part << "\n" << result.output;
  }
  const auto lane_segments = run_app(
      "train_ds", config("toponet_r50_8x1_24e_olv2_subset_A.yaml") + " --work-dir '" +
                      (dir / "work").string() +
                      "' --cfg-options model.img_backbone.init_cfg=null "
                      "data.train.ann_file=data/OpenLane-V2/data_dict_subset_A_train_ls.pkl");
  EXPECT_EQ(lane_segments.exit_status, 2) << lane_segments.output;
  EXPECT_NE(lane_segments.output.find("key `data.train.ann_file`"), std::string::npos)
      << lane_segments.output;
  EXPECT_NE(lane_segments.output.find("names a collection of v2.x lane-segment frames"),
            std::string::npos)
      << lane_segments.output;
}

// mmdet's spellings: --auto-resume is --resume-from auto; --gpus and --gpu-ids are answered with
// the launcher that runs one process per GPU.
TEST(TrainDsCli, MmdetFlagsAreAcceptedOrAnsweredWithTheRightOne) {
  const auto resumed = run_app("train_ds", config("demo.yaml") + " --auto-resume --print-config");
  ASSERT_EQ(resumed.exit_status, 0) << resumed.output;
  EXPECT_EQ(parse_yaml(resumed.output, "printed").at("resume_from").as_string(), "auto");
  for (const std::string flag : {"--gpus 8", "--gpu-ids 0 1"}) {
    SCOPED_TRACE(flag);
    const auto result = run_app("train_ds", config("demo.yaml") + " " + flag);
    EXPECT_EQ(result.exit_status, 2) << result.output;
    EXPECT_NE(result.output.find("train_ds: error: --gpus / --gpu-ids"), std::string::npos)
        << result.output;
    EXPECT_NE(result.output.find("scripts/dist_train.sh CONFIG N"), std::string::npos)
        << result.output;
  }
}

TEST(TrainDsCli, UseDsWithoutAJsonOrWithABadOneExitsTwo) {
  const std::filesystem::path dir = test::scratch_dir("use_ds");
  const std::string work_dir = " --work-dir '" + (dir / "work").string() + "'";
  const auto no_json = run_app("train_ds", config("demo.yaml") + work_dir + " --use-ds");
  EXPECT_EQ(no_json.exit_status, 2) << no_json.output;
  EXPECT_NE(no_json.output.find("--use-ds needs a DeepSpeed JSON"), std::string::npos)
      << no_json.output;

  const std::filesystem::path json = test::write_text(
      dir, "ds.json", R"({"train_micro_batch_size_per_gpu": 2, "fp16": {"enabeld": true}})");
  const auto bad_key =
      run_app("train_ds", config("demo.yaml") + work_dir + " --use-ds --deepspeed-config '" +
                              json.string() + "'");
  EXPECT_EQ(bad_key.exit_status, 2) << bad_key.output;
  EXPECT_NE(bad_key.output.find("unknown key `fp16.enabeld`"), std::string::npos) << bad_key.output;
  EXPECT_NE(bad_key.output.find(json.string()), std::string::npos) << bad_key.output;
}

TEST(TrainDsCli, VersionAndHelp) {
  const auto version = run_app("train_ds", "--version");
  EXPECT_EQ(version.exit_status, 0);
  EXPECT_NE(version.output.find(std::string("LibTorch ") + OLV2_BUILT_LIBTORCH_VERSION),
            std::string::npos)
      << version.output;
  EXPECT_NE(version.output.find("\nBLAS: "), std::string::npos) << version.output;
  EXPECT_EQ(run_app("train_ds", "--help").exit_status, 0);
}

// The default build is the one GPU users make: PyTorch's LibTorch with CUDA, linked and named.
// It starts and reports itself on a machine without a GPU or driver.
TEST(TrainDsCli, TheDefaultBuildLinksLibTorchCudaAndSaysSo) {
  const auto version = run_app("train_ds", "--version");
  ASSERT_EQ(version.exit_status, 0) << version.output;
  const auto linked = test::run_command("ldd " + (test::bin_dir() / "train_ds").string());
  ASSERT_EQ(linked.exit_status, 0) << linked.output;
  EXPECT_EQ(linked.output.find("not found"), std::string::npos) << linked.output;
  if (std::string(OLV2_BUILT_LIBTORCH) == "venv") {
    EXPECT_TRUE(OLV2_BUILT_WITH_CUDA) << "the default LibTorch (the project's PyTorch) has CUDA";
  }
  // The system's libstdc++ is looked up before LibTorch, whose wheel exports copies of some of
  // its symbols (cmake/SelectLibTorch.cmake).
  const auto dynamic = test::run_command("readelf -d " + (test::bin_dir() / "train_ds").string());
  ASSERT_EQ(dynamic.exit_status, 0) << dynamic.output;
  const size_t libstdcxx = dynamic.output.find("[libstdc++.so.6]");
  ASSERT_NE(libstdcxx, std::string::npos) << dynamic.output;
  EXPECT_LT(libstdcxx, dynamic.output.find("[libtorch")) << dynamic.output;
  if (OLV2_BUILT_WITH_CUDA) {
    EXPECT_NE(linked.output.find("libtorch_cuda.so"), std::string::npos) << linked.output;
    EXPECT_NE(version.output.find(" (CUDA "), std::string::npos) << version.output;
    EXPECT_NE(version.output.find(", cuDNN "), std::string::npos) << version.output;
    EXPECT_NE(version.output.find(", NCCL "), std::string::npos) << version.output;
  } else {
    EXPECT_EQ(linked.output.find("libtorch_cuda.so"), std::string::npos) << linked.output;
    EXPECT_NE(version.output.find(" (CPU only)"), std::string::npos) << version.output;
  }
}

}  // namespace
}  // namespace olv2
