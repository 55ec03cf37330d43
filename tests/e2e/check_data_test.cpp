// check_data on the pipeline fixtures' raw data: summary, problems, exit statuses and --dump-out.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/serialize.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "support/run_command.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

std::vector<char> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The collection file and image list of the fixture, from pipeline_meta.json.
struct FixtureData {
  fs::path raw;
  fs::path collection;
  nlohmann::ordered_json meta;
};

FixtureData fixture_data(const fs::path& meta_path) {
  FixtureData data;
  data.raw = meta_path.parent_path() / "raw";
  std::ifstream in(meta_path);
  data.meta = nlohmann::ordered_json::parse(in);
  // Collections are named <stem>_<split>; the file is <stem>.json.
  const std::string name = data.meta.at("splits").begin().value().at("collection");
  data.collection = data.raw / (name.substr(0, name.rfind('_')) + ".json");
  return data;
}

TEST(CheckData, CleanDatasetExitsZeroWithASummaryOfEverySplit) {
  OLV2_REQUIRE_FIXTURE(meta_path, "pipeline/pipeline_meta.json");
  const FixtureData data = fixture_data(meta_path);
  const auto result =
      test::run_app("check_data", "--data-root " + quoted(data.raw) + " --collection " +
                                      quoted(data.collection) + " --decode");
  EXPECT_EQ(result.exit_status, 0) << result.output;
  for (const auto& split : data.meta.at("splits").items()) {
    const std::string line = "split " + split.key() + ": " +
                             std::to_string(split.value().at("samples").size()) + " frames";
    EXPECT_NE(result.output.find(line), std::string::npos) << line << "\n" << result.output;
  }
  EXPECT_NE(result.output.find("no problems found"), std::string::npos) << result.output;
}

TEST(CheckData, TruncatedImageIsFoundAndNamed) {
  OLV2_REQUIRE_FIXTURE(meta_path, "pipeline/pipeline_meta.json");
  const FixtureData data = fixture_data(meta_path);
  const fs::path copy = test::scratch_dir("raw");
  fs::copy(data.raw, copy, fs::copy_options::recursive);
  const auto& sample = data.meta.at("splits").begin().value().at("samples").at(0);
  const fs::path image = copy / sample.at("img_paths").at(1).get<std::string>();
  std::vector<char> bytes = read_bytes(image);
  bytes.resize(bytes.size() * 2 / 3);  // an interrupted download
  std::ofstream(image, std::ios::binary | std::ios::trunc).write(bytes.data(), bytes.size());

  const auto result = test::run_app("check_data", "--data-root " + quoted(copy) + " --collection " +
                                                      quoted(copy / data.collection.filename()));
  EXPECT_EQ(result.exit_status, 1) << result.output;
  EXPECT_NE(result.output.find("truncated JPEG: 1"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find(image.string()), std::string::npos) << result.output;
}

// Frames that would train silently in the original: a camera missing, a traffic element class
// out of range. Each is named with its file, its key and what was expected.
TEST(CheckData, FramesOutsideTheFormatAreFoundAndNamed) {
  OLV2_REQUIRE_FIXTURE(meta_path, "pipeline/pipeline_meta.json");
  const FixtureData data = fixture_data(meta_path);
  const fs::path copy = test::scratch_dir("raw");
  fs::copy(data.raw, copy, fs::copy_options::recursive);
  std::vector<fs::path> frames;
  for (const auto& entry : fs::recursive_directory_iterator(copy)) {
    if (entry.path().parent_path().filename() == "info") frames.push_back(entry.path());
  }
  std::sort(frames.begin(), frames.end());
  ASSERT_GE(frames.size(), 2u);
  const auto edit = [](const fs::path& file, const auto& change) {
    nlohmann::ordered_json frame = nlohmann::ordered_json::parse(std::ifstream(file));
    change(frame);
    std::ofstream(file, std::ios::trunc) << frame.dump();
  };
  edit(frames[0], [](nlohmann::ordered_json& frame) { frame["sensor"].erase("ring_side_right"); });
  edit(frames[1], [](nlohmann::ordered_json& frame) {
    frame["annotation"]["traffic_element"][0]["attribute"] = 13;
  });

  const auto result = test::run_app("check_data", "--data-root " + quoted(copy) + " --collection " +
                                                      quoted(copy / data.collection.filename()));
  EXPECT_EQ(result.exit_status, 1) << result.output;
  EXPECT_NE(result.output.find("invalid frame: 2"), std::string::npos) << result.output;
  EXPECT_NE(
      result.output.find(frames[0].string() + ": key `sensor`: camera `ring_side_right` missing"),
      std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find(frames[1].string() +
                               ": key `annotation.traffic_element[0].attribute`: 13 is not a "
                               "traffic element class, expected an integer in [0, 13)"),
            std::string::npos)
      << result.output;
}

TEST(CheckData, BadInvocationExitsTwo) {
  const auto missing_flag = test::run_app("check_data", "--collection x.json");
  EXPECT_EQ(missing_flag.exit_status, 2) << missing_flag.output;
  const fs::path dir = test::scratch_dir("empty");
  const auto missing_file = test::run_app(
      "check_data", "--data-root " + quoted(dir) + " --collection " + quoted(dir / "none.json"));
  EXPECT_EQ(missing_file.exit_status, 2) << missing_file.output;
  EXPECT_NE(missing_file.output.find("check_data: error: "), std::string::npos)
      << missing_file.output;
  EXPECT_NE(missing_file.output.find("none.json"), std::string::npos) << missing_file.output;
}

// The dump holds the fixture's post-pipeline keys, and they match within the README's
// tolerances (the front camera went through cv::resize: 1e-4; everything else 1e-6 or exact).
TEST(CheckData, DumpMatchesThePipelineFixture) {
  OLV2_REQUIRE_FIXTURE(meta_path, "pipeline/pipeline_meta.json");
  const FixtureData data = fixture_data(meta_path);
  const fs::path dump = test::scratch_dir("dump") / "dump.pt";
  const auto result =
      test::run_app("check_data", quoted(test::source_dir() / "configs" / "baseline.yaml") +
                                      " --data-root " + quoted(data.raw) + " --collection " +
                                      quoted(data.collection) + " --dump-out " + quoted(dump));
  ASSERT_EQ(result.exit_status, 0) << result.output;
  const c10::impl::GenericDict actual = torch::pickle_load(read_bytes(dump)).toGenericDict();
  const c10::impl::GenericDict expected =
      torch::pickle_load(read_bytes(meta_path.parent_path() / "pipeline_expected.pt"))
          .toGenericDict();
  size_t compared = 0;
  for (const auto& item : actual) {
    const std::string key = item.key().toStringRef();
    SCOPED_TRACE(key);
    ASSERT_TRUE(expected.contains(key)) << "the dump has a key the fixture lacks";
    const at::Tensor a = item.value().toTensor();
    const at::Tensor e = expected.at(key).toTensor();
    ASSERT_EQ(a.sizes(), e.sizes());
    ASSERT_EQ(a.scalar_type(), e.scalar_type());
    const bool floating = at::isFloatingType(a.scalar_type());
    if (!floating || key.find("scale_factor") != std::string::npos) {
      EXPECT_TRUE(at::equal(a, e));
    } else {
      const at::Tensor diff = (a.to(at::kDouble) - e.to(at::kDouble)).abs();
      const at::Tensor scale = e.to(at::kDouble).abs().clamp_min(1.0);
      double tol = 1e-6;
      if (key.find("lidar2img") != std::string::npos || key.find("can_bus") != std::string::npos)
        tol = 1e-12;
      if (key.find("gt_lc") != std::string::npos) tol = 1e-5;
      const bool per_camera = key.find(".img_") != std::string::npos && a.dim() >= 2;
      if (per_camera) {
        EXPECT_LE(diff[0].max().item<double>(), 1e-4) << "camera 0";
        EXPECT_LE(diff.narrow(0, 1, diff.size(0) - 1).max().item<double>(), tol) << "cameras 1..";
      } else if (diff.numel() > 0) {
        EXPECT_LE((diff / scale).max().item<double>(), tol);
      }
    }
    ++compared;
  }
  // Every post-pipeline key of every fixture frame, plus one sample_order per split.
  size_t frames = 0;
  for (const auto& split : data.meta.at("splits").items())
    frames += split.value().at("samples").size();
  EXPECT_GE(compared, frames * 11 + data.meta.at("splits").size());
}

}  // namespace
}  // namespace olv2

namespace olv2 {
namespace {

// v2.x frames made by make_synthetic_data --format lane-segment: checked as a lane-segment
// collection they are clean and counted as lane segments and areas; a line type out of range is
// named by frame and key; read as v1.x frames, their `<timestamp>.json` files are missing.
TEST(CheckData, LaneSegmentFramesAreCheckedAsTheirCollectionReadsThem) {
  const fs::path root = test::scratch_dir("lane_segment_data");
  const auto made =
      test::run_app("make_synthetic_data", "--out-dir " + quoted(root) +
                                               " --format lane-segment --frames 3 --val-frames 1 "
                                               "--image-scale 0.03");
  ASSERT_EQ(made.exit_status, 0) << made.output;
  EXPECT_NE(made.output.find(" lane segments, 9 areas,"), std::string::npos) << made.output;
  const std::string data =
      "--data-root " + quoted(root) + " --collection " + quoted(root / "data_dict_synthetic.json");

  const auto clean = test::run_app("check_data", data + " --collection-kind ls");
  EXPECT_EQ(clean.exit_status, 0) << clean.output;
  EXPECT_NE(clean.output.find("split train: 2 frames (2 annotated), "), std::string::npos)
      << clean.output;
  EXPECT_NE(clean.output.find(" pedestrian crossings, 4 road boundaries, "), std::string::npos)
      << clean.output;

  const auto as_centerlines = test::run_app("check_data", data);
  EXPECT_EQ(as_centerlines.exit_status, 1) << as_centerlines.output;
  EXPECT_NE(as_centerlines.output.find("missing frame: 2"), std::string::npos)
      << as_centerlines.output;

  fs::path frame;
  for (const auto& entry : fs::recursive_directory_iterator(root / "val")) {
    if (entry.path().string().find("-ls.json") != std::string::npos) frame = entry.path();
  }
  ASSERT_FALSE(frame.empty());
  std::ifstream in(frame);
  nlohmann::ordered_json json = nlohmann::ordered_json::parse(in);
  in.close();
  json["annotation"]["lane_segment"][0]["left_laneline_type"] = 5;
  std::ofstream(frame, std::ios::trunc) << json.dump();
  const auto bad = test::run_app("check_data", data + " --collection-kind lanesegnet");
  EXPECT_EQ(bad.exit_status, 1) << bad.output;
  EXPECT_NE(bad.output.find(frame.string()), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find("key `annotation.lane_segment[0].left_laneline_type`: 5 is not a "
                            "line type"),
            std::string::npos)
      << bad.output;
}

}  // namespace
}  // namespace olv2
