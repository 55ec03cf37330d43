// Parity of the frame reader and the train/test pipelines with the original dataset class
// (fixtures/pipeline: pipeline_meta.json lists the frames, pipeline_expected.pt the tensors).
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/serialize.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "olv2/config/config_loader.h"
#include "olv2/data/dataset.h"
#include "olv2/data/dataset_location.h"
#include "olv2/data/frame_reader.h"
#include "olv2/data/image_io.h"
#include "olv2/data/pipeline.h"
#include "support/fixture_tolerances.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

using Json = nlohmann::ordered_json;

// Tolerances of the fixtures README.
constexpr double kImageTol = 1e-6;         // normalised pixels without resampling
constexpr double kResizedImageTol = 1e-4;  // the front camera after cv::resize
constexpr double kCanBusTol = 1e-12;
constexpr double kBezierRelTol = 1e-5;

std::map<std::string, at::Tensor> load_expected(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::map<std::string, at::Tensor> out;
  for (const auto& item : torch::pickle_load(bytes).toGenericDict()) {
    out[item.key().toStringRef()] = item.value().toTensor();
  }
  return out;
}

// Max |a - b| / max(1, |b|) (relative) or max |a - b| (absolute), in float64.
double max_diff(const at::Tensor& a, const at::Tensor& b, bool relative = false) {
  const at::Tensor x = a.to(at::kDouble);
  const at::Tensor y = b.to(at::kDouble);
  at::Tensor d = (x - y).abs();
  if (relative) d = d / y.abs().clamp_min(1.0);
  return d.numel() == 0 ? 0.0 : d.max().item<double>();
}

void expect_exact(const at::Tensor& actual, const at::Tensor& expected, const std::string& key) {
  ASSERT_EQ(actual.sizes(), expected.sizes()) << key;
  ASSERT_EQ(actual.scalar_type(), expected.scalar_type()) << key;
  EXPECT_TRUE(at::equal(actual, expected)) << key << "\nactual\n"
                                           << actual << "\nexpected\n"
                                           << expected;
}

void expect_close(const at::Tensor& actual, const at::Tensor& expected, double tol,
                  const std::string& key, bool relative = false) {
  ASSERT_EQ(actual.sizes(), expected.sizes()) << key;
  EXPECT_LE(max_diff(actual, expected, relative), tol) << key;
}

// Per camera tolerance of image keys: camera 0 went through the resize.
void expect_image_close(const at::Tensor& actual, const at::Tensor& expected,
                        const std::string& key) {
  ASSERT_EQ(actual.sizes(), expected.sizes()) << key;
  EXPECT_LE(max_diff(actual[0], expected[0]), kResizedImageTol) << key << " camera 0";
  EXPECT_LE(max_diff(actual.narrow(0, 1, actual.size(0) - 1),
                     expected.narrow(0, 1, expected.size(0) - 1)),
            kImageTol)
      << key << " cameras 1..";
}

at::Tensor chw_strided(const cv::Mat& hwc) {
  at::Tensor t = at::from_blob(hwc.data, {hwc.rows, hwc.cols, 3}, at::kFloat);
  return t.permute({2, 0, 1}).slice(1, 0, hwc.rows, 8).slice(2, 0, hwc.cols, 8).contiguous();
}

at::Tensor shapes_tensor(const std::vector<std::array<int64_t, 3>>& shapes) {
  at::Tensor t = at::empty({static_cast<int64_t>(shapes.size()), 3}, at::kLong);
  for (size_t i = 0; i < shapes.size(); ++i)
    for (int j = 0; j < 3; ++j) t[i][j] = shapes[i][j];
  return t;
}

at::Tensor matrices_tensor(const std::vector<Matrix4d>& matrices) {
  at::Tensor t = at::empty({static_cast<int64_t>(matrices.size()), 4, 4}, at::kDouble);
  for (size_t i = 0; i < matrices.size(); ++i)
    std::copy(matrices[i].begin(), matrices[i].end(), t.data_ptr<double>() + i * 16);
  return t;
}

// The pipeline list of the config for `split`, cut after its first `count` transforms and
// restricted to the transform types `types` (the fixture's list).
ConfigNode pipeline_config(const ConfigNode& config, const std::string& split,
                           const std::set<std::string>& types, size_t count = SIZE_MAX) {
  const ConfigNode& full = config.at("data").at(split).at("pipeline");
  ConfigNode list = ConfigNode::sequence(full.location());
  size_t kept = 0;
  for (const ConfigNode& entry : full.elements()) {
    if (types.count(entry.at("type").as_string()) == 0) continue;
    if (kept++ == count) break;
    list.push_back(entry);
  }
  return list;
}

class DataPipelineParity : public ::testing::Test {
 protected:
  void SetUp() override {
    fixture_ = test::fixture_path("pipeline/pipeline_meta.json");
    if (fixture_.empty()) {
      if (test::running_in_ci()) FAIL() << "fixture pipeline/ missing under CI (set OLV2_FIXTURES)";
      GTEST_SKIP() << "fixture pipeline/ not found (set OLV2_FIXTURES)";
    }
    fixture_ = fixture_.parent_path();
    std::ifstream in(fixture_ / "pipeline_meta.json");
    meta_ = Json::parse(in);
    expected_ = load_expected(fixture_ / "pipeline_expected.pt");
    config_ = load_config_file(test::source_dir() / "configs" / "baseline.yaml");
  }

  void check_split(const std::string& split);

  std::filesystem::path fixture_;
  Json meta_;
  std::map<std::string, at::Tensor> expected_;
  ConfigNode config_;
};

void DataPipelineParity::check_split(const std::string& split) {
  const Json& info = meta_.at("splits").at(split);
  const std::filesystem::path raw = fixture_ / "raw";
  const DatasetLocation location =
      dataset_location_from_collection(raw, raw, info.at("collection").get<std::string>());
  ASSERT_EQ(location.split, split);
  std::set<std::string> types;
  for (const Json& name : info.at("pipeline")) types.insert(name.get<std::string>());
  const std::string config_split = info.at("test_mode").get<bool>() ? "val" : "train";

  const FrameIndex index(location.data_root, location.collection_file, location.split);
  const Pipeline pipeline = build_pipeline(pipeline_config(config_, config_split, types));
  ASSERT_EQ(pipeline.types().size(), types.size()) << "the config lacks a transform of the fixture";
  const OpenLaneV2Dataset dataset(index, pipeline, DatasetOptions{});

  // Order and identity of the frames.
  const Json& samples = info.at("samples");
  ASSERT_EQ(dataset.size(), samples.size());
  at::Tensor order = at::empty({static_cast<int64_t>(dataset.size()), 2}, at::kLong);
  for (size_t i = 0; i < dataset.size(); ++i) {
    order[i][0] = static_cast<int64_t>(std::stoll(index.key(i).segment_id));
    order[i][1] = static_cast<int64_t>(std::stoll(index.key(i).timestamp));
    EXPECT_EQ(index.key(i).segment_id, samples[i].at("scene_token").get<std::string>());
    EXPECT_EQ(index.key(i).timestamp, samples[i].at("sample_idx").get<std::string>());
  }
  expect_exact(order, expected_.at(split + ".sample_order"), split + ".sample_order");

  for (size_t i = 0; i < dataset.size(); ++i) {
    const std::string prefix = split + "." + index.key(i).timestamp + ".";
    const Frame frame = index.load(i);
    const Sample sample = dataset.get(i, 0);
    std::mt19937_64 rng = make_sample_rng(0, 0, 0);
    const PipelineData before = make_pipeline_data(frame, location.data_root.string());
    const PipelineData normalized = build_pipeline(pipeline_config(config_, config_split, types, 2))
                                        .run_data(frame, location.data_root.string(), rng);
    const PipelineData resized = build_pipeline(pipeline_config(config_, config_split, types, 3))
                                     .run_data(frame, location.data_root.string(), rng);
    ASSERT_EQ(sample.meta.img_paths.size(), samples[i].at("img_paths").size());
    for (size_t c = 0; c < sample.meta.img_paths.size(); ++c) {
      EXPECT_EQ(sample.meta.img_paths[c], location.data_root.string() + "/" +
                                              samples[i].at("img_paths")[c].get<std::string>());
    }

    std::set<std::string> checked;
    for (const auto& [key, expected] : expected_) {
      if (key.rfind(prefix, 0) != 0) continue;
      const std::string name = key.substr(prefix.size());
      checked.insert(name);
      SCOPED_TRACE(key);
      const at::Tensor planes = sample.img.to(at::kDouble).flatten(2);  // [N, 3, H*W]
      if (name == "img_s8") {
        expect_image_close(
            sample.img.slice(2, 0, sample.img.size(2), 8).slice(3, 0, sample.img.size(3), 8),
            expected, key);
      } else if (name == "img_mean") {
        expect_close(planes.mean(2), expected, kImageTol, key);
      } else if (name == "img_std") {
        expect_close(planes.std(2, /*unbiased=*/false), expected, kImageTol, key);
      } else if (name == "img_min") {
        expect_image_close(std::get<0>(sample.img.flatten(2).min(2)), expected, key);
      } else if (name == "img_max") {
        expect_image_close(std::get<0>(sample.img.flatten(2).max(2)), expected, key);
      } else if (name == "img_full_shape") {
        expect_exact(at::tensor(sample.img.sizes().vec(), at::kLong), expected, key);
      } else if (name == "lidar2img") {
        expect_close(sample.lidar2img, expected, test::kMatrixRelTol, key, true);
      } else if (name == "lidar2img_before_resize") {
        expect_close(matrices_tensor(before.lidar2img), expected, test::kMatrixRelTol, key, true);
      } else if (name == "img_shape") {
        expect_exact(shapes_tensor(sample.meta.img_shape), expected, key);
      } else if (name == "pad_shape") {
        expect_exact(shapes_tensor(sample.meta.pad_shape), expected, key);
      } else if (name == "scale_factor") {
        expect_exact(at::tensor(std::vector<float>(sample.meta.scale_factor.begin(),
                                                   sample.meta.scale_factor.end())),
                     expected, key);
      } else if (name == "can_bus") {
        expect_close(sample.can_bus, expected, kCanBusTol, key);
      } else if (name == "norm_cam1_s8") {
        expect_close(chw_strided(normalized.images.at(1)), expected, kImageTol, key);
      } else if (name == "norm_cam0_s8") {
        expect_close(chw_strided(normalized.images.at(0)), expected, kImageTol, key);
      } else if (name == "resize_cam0_s8") {
        expect_close(chw_strided(resized.images.at(0)), expected, kResizedImageTol, key);
      } else if (name == "decoded_bgr_sum") {
        at::Tensor sums = at::empty({static_cast<int64_t>(before.img_paths.size()), 3}, at::kLong);
        for (size_t c = 0; c < before.img_paths.size(); ++c) {
          const cv::Mat image = decode_image(before.img_paths[c]);
          at::Tensor pixels = at::from_blob(image.data, {image.rows * image.cols, 3}, at::kByte);
          sums[c] = pixels.to(at::kLong).sum(0);
        }
        expect_exact(sums, expected, key);
      } else if (name == "ann_lc_points") {
        const at::Tensor lc = at::from_blob(const_cast<float*>(before.gt_lc.data()),
                                            {before.num_lanes, before.lane_points, 3}, at::kFloat);
        expect_exact(lc, expected, key);
      } else if (name == "ann_te_raw") {
        const int64_t k = static_cast<int64_t>(before.gt_te_labels.size());
        expect_exact(at::from_blob(const_cast<float*>(before.gt_te.data()), {k, 4}, at::kFloat),
                     expected, key);
      } else if (name == "gt_lc") {
        ASSERT_TRUE(sample.has_gt());
        expect_close(sample.gt_lc, expected, kBezierRelTol, key, true);
        EXPECT_EQ(sample.gt_lc.scalar_type(), expected.scalar_type());
      } else if (name == "gt_lc_labels") {
        expect_exact(sample.gt_lc_labels, expected, key);
      } else if (name == "gt_te") {
        expect_exact(sample.gt_te, expected, key);
      } else if (name == "gt_te_labels") {
        expect_exact(sample.gt_te_labels, expected, key);
      } else if (name == "gt_topology_lclc") {
        expect_exact(sample.gt_topology_lclc, expected, key);
      } else if (name == "gt_topology_lcte") {
        expect_exact(sample.gt_topology_lcte, expected, key);
      } else {
        ADD_FAILURE() << "no check for fixture key " << key;
      }
    }
    EXPECT_FALSE(checked.empty()) << "no fixture keys for " << prefix;
    // The test pipeline collects no ground truth; the train pipeline collects all of it.
    EXPECT_EQ(sample.has_gt(), checked.count("gt_lc") == 1) << prefix;
  }
}

TEST_F(DataPipelineParity, EverySplitOfTheFixtureMatchesTheOriginal) {
  ASSERT_FALSE(meta_.at("splits").empty());
  for (const auto& item : meta_.at("splits").items()) {
    SCOPED_TRACE("split " + item.key());
    check_split(item.key());
  }
}

}  // namespace
}  // namespace olv2
