// TopoNet's data pipeline against the original's (tests/data/toponet/pipeline_expected.pt, written
// by scripts/make_toponet_fixtures.sh with TopoNet's own dataset on the raw frames of the
// pipeline fixture): every frame of both splits through the subset-A config's pipelines (less
// the two random transforms), the crop and the scale one at a time, the crop's dropped boxes,
// GridMask under given draws, and LaneParameterize3D off its 201-point shortcut.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/serialize.h>

#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "olv2/config/config_loader.h"
#include "olv2/data/dataset_location.h"
#include "olv2/data/frame_reader.h"
#include "olv2/data/pipeline.h"
#include "olv2/data/transforms/crop_front_view.h"
#include "olv2/data/transforms/grid_mask.h"
#include "olv2/data/transforms/lane_parameterize_3d.h"
#include "support/fixture_tolerances.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

constexpr double kStatisticTol = 1e-6;
const std::set<std::string> kRandomTransforms = {"PhotoMetricDistortionMultiViewImage",
                                                 "GridMaskMultiViewImage"};

std::map<std::string, at::Tensor> load_toponet_expected() {
  std::ifstream in(test::source_dir() / "tests/data/toponet/pipeline_expected.pt",
                   std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::map<std::string, at::Tensor> out;
  for (const auto& item : torch::pickle_load(bytes).toGenericDict()) {
    out[item.key().toStringRef()] = item.value().toTensor();
  }
  return out;
}

const at::Tensor& expected_at(const std::map<std::string, at::Tensor>& expected,
                              const std::string& key) {
  const auto found = expected.find(key);
  if (found == expected.end()) throw std::runtime_error("fixture key `" + key + "` missing");
  return found->second;
}

double max_difference(const at::Tensor& a, const at::Tensor& b, bool relative = false) {
  at::Tensor d = (a.to(at::kDouble) - b.to(at::kDouble)).abs();
  if (relative) d = d / b.to(at::kDouble).abs().clamp_min(1.0);
  return d.numel() == 0 ? 0.0 : d.max().item<double>();
}

void expect_within(const at::Tensor& actual, const at::Tensor& expected, double tol,
                   const std::string& key, bool relative = false) {
  ASSERT_EQ(actual.sizes(), expected.sizes()) << key;
  EXPECT_LE(max_difference(actual, expected, relative), tol) << key;
}

void expect_equal_values(const at::Tensor& actual, const at::Tensor& expected,
                         const std::string& key) {
  ASSERT_EQ(actual.sizes(), expected.sizes()) << key;
  EXPECT_TRUE(at::equal(actual.to(at::kDouble), expected.to(at::kDouble)))
      << key << "\nactual\n"
      << actual << "\nexpected\n"
      << expected;
}

at::Tensor shapes_of(const std::vector<std::array<int64_t, 3>>& shapes) {
  at::Tensor t = at::empty({static_cast<int64_t>(shapes.size()), 3}, at::kLong);
  for (size_t i = 0; i < shapes.size(); ++i)
    for (int j = 0; j < 3; ++j) t[static_cast<int64_t>(i)][j] = shapes[i][j];
  return t;
}

at::Tensor offsets_of(const std::vector<std::array<int64_t, 2>>& offsets, size_t cameras) {
  at::Tensor t = at::zeros({static_cast<int64_t>(cameras), 2}, at::kLong);
  for (size_t i = 0; i < offsets.size(); ++i)
    for (int j = 0; j < 2; ++j) t[static_cast<int64_t>(i)][j] = offsets[i][j];
  return t;
}

at::Tensor matrix_of(const Matrix4d& m) {
  return at::tensor(std::vector<double>(m.begin(), m.end()), at::kDouble).view({4, 4});
}

at::Tensor boxes_of(const PipelineData& data) {
  const int64_t k = static_cast<int64_t>(data.gt_te_labels.size());
  return at::tensor(data.gt_te, at::kFloat).view({k, 4});
}

class TopoNetPipelineParity : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::filesystem::path meta = test::fixture_path("pipeline/pipeline_meta.json");
    if (meta.empty()) {
      if (test::running_in_ci()) FAIL() << "fixture pipeline/ missing under CI (set OLV2_FIXTURES)";
      GTEST_SKIP() << "fixture pipeline/ not found (set OLV2_FIXTURES)";
    }
    raw_ = meta.parent_path() / "raw";
    expected_ = load_toponet_expected();
    config_ =
        load_config_file(test::source_dir() / "configs/toponet_r50_8x1_24e_olv2_subset_A.yaml");
  }

  // The first `count` non-random transforms of the split's pipeline.
  Pipeline pipeline(const std::string& split, size_t count = SIZE_MAX) const {
    const ConfigNode& full = config_.at("data").at(split).at("pipeline");
    ConfigNode list = ConfigNode::sequence(full.location());
    for (const ConfigNode& entry : full.elements()) {
      if (kRandomTransforms.count(entry.at("type").as_string()) != 0) continue;
      if (list.size() == count) break;
      list.push_back(entry);
    }
    return build_pipeline(list);
  }

  FrameIndex index(const std::string& split) const {
    const DatasetLocation location =
        dataset_location_from_collection(raw_, raw_, "data_dict_fixture_" + split);
    return FrameIndex(location.data_root, location.collection_file, location.split);
  }

  void check_split(const std::string& split);

  std::filesystem::path raw_;
  std::map<std::string, at::Tensor> expected_;
  ConfigNode config_;
};

void TopoNetPipelineParity::check_split(const std::string& split) {
  const FrameIndex frames = index(split);
  const Pipeline full = pipeline(split);
  at::Tensor order = at::empty({static_cast<int64_t>(frames.size()), 2}, at::kLong);
  for (size_t i = 0; i < frames.size(); ++i) {
    order[static_cast<int64_t>(i)][0] = static_cast<int64_t>(std::stoll(frames.key(i).segment_id));
    order[static_cast<int64_t>(i)][1] = static_cast<int64_t>(std::stoll(frames.key(i).timestamp));
  }
  expect_equal_values(order, expected_at(expected_, split + ".sample_order"), "sample_order");

  const bool train = split == "train";
  for (size_t i = 0; i < frames.size(); ++i) {
    const std::string prefix = split + "." + frames.key(i).timestamp + ".";
    SCOPED_TRACE(prefix);
    std::mt19937_64 rng = make_sample_rng(0, 0, 0);
    const PipelineData data = full.run_data(frames.load(i), frames.data_root().string(), rng);
    const Sample& s = data.sample;
    const auto expect = [&](const std::string& name) {
      return expected_at(expected_, prefix + name);
    };
    // Bit for bit, as the fixture's README finds the original's resize and Normalize.
    expect_equal_values(s.img.slice(2, 0, s.img.size(2), 16).slice(3, 0, s.img.size(3), 16),
                        expect("img_s16"), "img_s16");
    const at::Tensor planes = s.img.to(at::kDouble).flatten(2);
    expect_within(planes.mean(2), expect("img_mean"), kStatisticTol, "img_mean");
    expect_within(planes.std(2, /*unbiased=*/false), expect("img_std"), kStatisticTol, "img_std");
    expect_equal_values(at::tensor(s.img.sizes().vec(), at::kLong), expect("img_full_shape"),
                        "img_full_shape");
    expect_within(s.lidar2img, expect("lidar2img"), test::kMatrixRelTol, "lidar2img", true);
    expect_equal_values(shapes_of(s.meta.img_shape), expect("img_shape"), "img_shape");
    expect_equal_values(shapes_of(data.ori_shape), expect("ori_shape"), "ori_shape");
    expect_equal_values(shapes_of(s.meta.pad_shape), expect("pad_shape"), "pad_shape");
    expect_equal_values(offsets_of(s.meta.crop_shape, s.meta.img_shape.size()),
                        expect("crop_shape"), "crop_shape");
    // The original's meta holds the scale once a camera; ours, (w, h, w, h) of the one scale.
    const at::Tensor factors = expect("scale_factor");
    EXPECT_TRUE(at::equal(factors, at::full_like(factors, factors[0].item<double>())));
    for (const float ours : s.meta.scale_factor) EXPECT_EQ(ours, factors[0].item<double>());
    // TopoNet's dataset zeroes a training frame's ego motion (`union2one`); here the detector
    // does, so the pipeline keeps it and the rest must agree.
    const at::Tensor can_bus = expect("can_bus");
    const std::vector<int64_t> motion = {0, 1, 2, 17};
    at::Tensor ours = s.can_bus.clone();
    if (train) {
      for (const int64_t k : motion) {
        EXPECT_EQ(can_bus[k].item<double>(), 0.0) << "can_bus[" << k << "]";
        ours[k] = 0.0;
      }
    }
    expect_within(ours, can_bus, 1e-12, "can_bus");
    if (!train) {
      EXPECT_FALSE(s.has_gt());
      continue;
    }
    expect_equal_values(s.gt_lc, expect("gt_lanes_3d"), "gt_lanes_3d");
    expect_equal_values(s.gt_lc_labels, expect("gt_lane_labels_3d"), "gt_lane_labels_3d");
    expect_equal_values(s.gt_topology_lclc, expect("gt_lane_adj"), "gt_lane_adj");
    expect_equal_values(s.gt_te, expect("gt_bboxes"), "gt_bboxes");
    expect_equal_values(s.gt_te_labels, expect("gt_labels"), "gt_labels");
    expect_equal_values(s.gt_topology_lcte, expect("gt_lane_lcte_adj"), "gt_lane_lcte_adj");
  }
}

TEST_F(TopoNetPipelineParity, EveryFrameOfBothSplitsMatchesTheOriginal) {
  for (const std::string split : {"train", "val"}) {
    SCOPED_TRACE(split);
    check_split(split);
  }
}

TEST_F(TopoNetPipelineParity, TheCropAndTheScaleOneAtATime) {
  const FrameIndex frames = index("train");
  ASSERT_EQ(frames.key(0).timestamp, "315968121249927208");
  const Frame frame = frames.load(0);
  const std::string root = frames.data_root().string();
  std::mt19937_64 rng = make_sample_rng(0, 0, 0);
  // Load, LoadAnnotations3DLane, then the crop; then the scale too.
  const PipelineData loaded = pipeline("train", 2).run_data(frame, root, rng);
  const PipelineData cropped = pipeline("train", 3).run_data(frame, root, rng);
  const PipelineData scaled = pipeline("train", 4).run_data(frame, root, rng);
  const auto expect = [&](const std::string& name) {
    return expected_at(expected_, "steps." + name);
  };

  for (size_t c = 0; c < loaded.lidar2img.size(); ++c) {
    expect_within(matrix_of(loaded.lidar2img[c]),
                  expect("loaded.lidar2img")[static_cast<int64_t>(c)], test::kMatrixRelTol,
                  "loaded.lidar2img", true);
  }
  expect_within(matrix_of(loaded.cam_intrinsic[0]), expect("loaded.cam_intrinsic0"),
                test::kMatrixRelTol, "loaded.cam_intrinsic0", true);
  expect_equal_values(boxes_of(loaded), expect("loaded.gt_bboxes"), "loaded.gt_bboxes");

  expect_equal_values(shapes_of(cropped.img_shape), expect("crop.img_shape"), "crop.img_shape");
  expect_equal_values(shapes_of(cropped.ori_shape), expect("crop.ori_shape"), "crop.ori_shape");
  expect_equal_values(offsets_of(cropped.crop_shape, cropped.img_shape.size()),
                      expect("crop.crop_shape"), "crop.crop_shape");
  expect_within(matrix_of(cropped.lidar2img[0]), expect("crop.lidar2img0"), test::kMatrixRelTol,
                "crop.lidar2img0", true);
  expect_within(matrix_of(cropped.cam_intrinsic[0]), expect("crop.cam_intrinsic0"),
                test::kMatrixRelTol, "crop.cam_intrinsic0", true);
  expect_equal_values(boxes_of(cropped), expect("crop.gt_bboxes"), "crop.gt_bboxes");
  expect_equal_values(at::tensor(cropped.gt_te_labels, at::kLong), expect("crop.gt_labels"),
                      "crop.gt_labels");

  expect_equal_values(shapes_of(scaled.img_shape), expect("scale.img_shape"), "scale.img_shape");
  expect_equal_values(shapes_of(scaled.ori_shape), expect("scale.ori_shape"), "scale.ori_shape");
  expect_within(matrix_of(scaled.lidar2img[0]), expect("scale.lidar2img0"), test::kMatrixRelTol,
                "scale.lidar2img0", true);
  expect_within(matrix_of(scaled.lidar2img[1]), expect("scale.lidar2img1"), test::kMatrixRelTol,
                "scale.lidar2img1", true);
  expect_within(matrix_of(scaled.cam_intrinsic[0]), expect("scale.cam_intrinsic0"),
                test::kMatrixRelTol, "scale.cam_intrinsic0", true);
  expect_equal_values(boxes_of(scaled), expect("scale.gt_bboxes"), "scale.gt_bboxes");
}

TEST_F(TopoNetPipelineParity, TheCropDropsTheBoxesAboveItsFirstRowWithTheirLinks) {
  PipelineData data;
  data.frame_name = "made-up boxes";
  data.images = {cv::Mat(2048, 1550, CV_8UC3, cv::Scalar(0, 0, 0))};
  data.img_shape = {{2048, 1550, 3}};
  data.cam2imgs = {{1, 0, 775, 0, 1, 1024, 0, 0, 1}};
  Matrix4d identity{};
  for (int d = 0; d < 4; ++d) identity[d * 5] = 1.0;
  Matrix4d intrinsic = identity;
  intrinsic[2] = 775;
  intrinsic[6] = 1024;
  data.cam_intrinsic = {intrinsic};
  data.lidar2cam = {identity};
  data.lidar2img = {intrinsic};
  const at::Tensor boxes = expected_at(expected_, "crop_drop.gt_bboxes_in").contiguous();
  data.gt_te.assign(boxes.data_ptr<float>(), boxes.data_ptr<float>() + boxes.numel());
  data.gt_te_labels = {0, 1, 2, 3, 4};
  const at::Tensor links = expected_at(expected_, "crop_drop.gt_lane_lcte_adj_in");
  data.num_lanes = links.size(0);
  for (int64_t lane = 0; lane < links.size(0); ++lane)
    for (int64_t b = 0; b < links.size(1); ++b)
      data.gt_topology_lcte.push_back(static_cast<int8_t>(links[lane][b].item<float>()));
  std::mt19937_64 rng = make_sample_rng(0, 0, 0);
  CropFrontView({356, 1906}).apply(data, rng);
  expect_equal_values(boxes_of(data), expected_at(expected_, "crop_drop.gt_bboxes"), "gt_bboxes");
  expect_equal_values(at::tensor(data.gt_te_labels, at::kLong),
                      expected_at(expected_, "crop_drop.gt_labels"), "gt_labels");
  expect_equal_values(
      at::tensor(std::vector<int64_t>(data.gt_topology_lcte.begin(), data.gt_topology_lcte.end()))
          .view({data.num_lanes, -1}),
      expected_at(expected_, "crop_drop.gt_lane_lcte_adj"), "gt_lane_lcte_adj");
  EXPECT_EQ(data.img_shape[0][0], 1550);
  EXPECT_EQ(data.cam_intrinsic[0][6], 1024 - 356);
}

TEST_F(TopoNetPipelineParity, GridMaskUnderTheOriginalsDraws) {
  const at::Tensor input = expected_at(expected_, "gridmask.input").contiguous();
  const GridMask mask{GridMaskOptions{}};
  for (const std::string name : {"d9", "d4", "skip"}) {
    SCOPED_TRACE(name);
    const std::string key = "gridmask." + name + ".";
    PipelineData data;
    data.images_float = true;
    for (int64_t c = 0; c < input.size(0); ++c) {
      const at::Tensor image = input[c].contiguous();
      data.images.push_back(cv::Mat(static_cast<int>(image.size(0)),
                                    static_cast<int>(image.size(1)), CV_32FC3,
                                    image.data_ptr<float>())
                                .clone());
      data.img_shape.push_back({image.size(0), image.size(1), 3});
    }
    GridMaskDraws draws;
    draws.rand = expected_at(expected_, key + "rand").item<double>();
    if (name != "skip") {
      draws.d = expected_at(expected_, key + "d").item<int64_t>();
      draws.st_h = expected_at(expected_, key + "st_h").item<int64_t>();
      draws.st_w = expected_at(expected_, key + "st_w").item<int64_t>();
    }
    mask.apply_draws(data, draws);
    std::vector<at::Tensor> images;
    for (const cv::Mat& image : data.images) {
      images.push_back(at::from_blob(image.data, {image.rows, image.cols, 3}, at::kFloat).clone());
    }
    expect_equal_values(at::stack(images), expected_at(expected_, key + "img"), key + "img");
  }
}

TEST_F(TopoNetPipelineParity, LanesOfOtherLengthsAreResampledAlongTheirGroundLength) {
  const at::Tensor output = expected_at(expected_, "lane_param.output");
  const LaneParameterize3D parameterize(11);
  for (int64_t lane = 0; lane < 2; ++lane) {
    const at::Tensor points =
        expected_at(expected_, "lane_param.input." + std::to_string(lane)).contiguous();
    PipelineData data;
    data.annotated = true;
    data.num_lanes = 1;
    data.lane_points = points.size(0);
    data.gt_lc.assign(points.data_ptr<float>(), points.data_ptr<float>() + points.numel());
    std::mt19937_64 rng = make_sample_rng(0, 0, 0);
    parameterize.apply(data, rng);
    ASSERT_TRUE(data.gt_lc_parameterized);
    expect_equal_values(at::tensor(data.gt_lc, at::kFloat), output[lane],
                        "lane " + std::to_string(lane));
  }
}

}  // namespace
}  // namespace olv2
