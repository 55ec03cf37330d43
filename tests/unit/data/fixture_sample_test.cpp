// Frames as the original's forward_train receives them (and the older fixtures' names) read as a
// batch, and the original benchmark's
// resolution change of a fixture sample: the image grows by the scale, the camera projection
// follows it, so a point in the ego frame lands on the scaled pixel, and the traffic-element
// boxes scale with it.
#include "olv2/data/fixture_sample.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <functional>
#include <map>
#include <string>

#include "olv2/util/error.h"
#include "olv2/util/pth/pth_file.h"
#include "olv2/util/state_dict.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

// Two frames of two cameras; frame b's images are all b, frame b has b + 1 lanes.
NamedTensors two_frame_input() {
  NamedTensors t = {
      {"img", torch::arange(2.0).reshape({2, 1, 1, 1, 1}).expand({2, 2, 3, 8, 8}).contiguous()},
      {"lidar2img", torch::eye(4, torch::kDouble).repeat({2, 2, 1, 1})},
      {"img_shape", torch::tensor({6, 8, 3}).repeat({2, 2, 1})},
      {"pad_shape", torch::tensor({8, 8, 3}).repeat({2, 2, 1})},
      {"scale_factor", torch::ones({2, 4})},
      {"can_bus", torch::arange(36.0, torch::kDouble).reshape({2, 18})}};
  for (int64_t b = 0; b < 2; ++b) {
    const std::string suffix = "." + std::to_string(b);
    t.emplace_back("gt_lc" + suffix, torch::full({b + 1, 15}, static_cast<double>(b)));
    t.emplace_back("gt_lc_labels" + suffix, torch::zeros({b + 1}, torch::kLong));
    t.emplace_back("gt_te" + suffix, torch::ones({1, 4}));
    t.emplace_back("gt_te_labels" + suffix, torch::zeros({1}, torch::kLong));
    t.emplace_back("gt_topology_lclc" + suffix, torch::zeros({b + 1, b + 1}, torch::kChar));
    t.emplace_back("gt_topology_lcte" + suffix, torch::zeros({b + 1, 1}, torch::kChar));
  }
  return t;
}

fs::path written(const NamedTensors& tensors, const fs::path& path) {
  write_pth(path, to_pth_value(tensors));
  return path;
}

TEST(FixtureBatch, ReadsEveryFrameOrTheChosenOnesInTheirOrder) {
  const fs::path file = written(two_frame_input(), test::scratch_dir("fixture_batch") / "two.pt");
  const Batch all = read_fixture_batch(file, /*with_gt=*/true);
  ASSERT_EQ(all.size(), 2);
  EXPECT_EQ(all.images.sizes(), (std::vector<int64_t>{2, 2, 3, 8, 8}));
  EXPECT_EQ(all.gt_lc[1].size(0), 2);
  EXPECT_EQ(all.metas[1].img_shape[0], (std::array<int64_t, 3>{6, 8, 3}));

  const Batch second = read_fixture_batch(file, /*with_gt=*/true, {1});
  ASSERT_EQ(second.size(), 1);
  EXPECT_EQ(second.images.min().item<float>(), 1.0f);
  EXPECT_EQ(second.can_bus[0][0].item<double>(), 18.0);
  EXPECT_EQ(second.gt_lc[0].size(0), 2);
  EXPECT_EQ(second.indices, std::vector<int64_t>{1});

  const Batch reversed = read_fixture_batch(file, /*with_gt=*/false, {1, 0});
  EXPECT_EQ(reversed.images[1].max().item<float>(), 0.0f);
  EXPECT_FALSE(reversed.has_gt());
}

// forward_train's format: `img` with a queue of one frame, the ground truth under its argument
// names, the crop offsets; read as given.
TEST(FixtureBatch, ReadsTheOriginalForwardTrainsArguments) {
  NamedTensors original;
  for (auto& [key, tensor] : two_frame_input()) {
    static const std::map<std::string, std::string> renamed = {
        {"gt_lc", "gt_lanes_3d"},
        {"gt_lc_labels", "gt_lane_labels_3d"},
        {"gt_te", "gt_bboxes"},
        {"gt_te_labels", "gt_labels"},
        {"gt_topology_lclc", "gt_lane_adj"},
        {"gt_topology_lcte", "gt_lane_lcte_adj"}};
    const std::string base = key.substr(0, key.find('.'));
    const auto name = renamed.find(base);
    const std::string new_key =
        name == renamed.end() ? key : name->second + key.substr(base.size());
    original.emplace_back(new_key, key == "img" ? tensor.unsqueeze(1) : tensor);
  }
  original.emplace_back("crop_shape", torch::tensor({0, 2}).repeat({2, 2, 1}));
  original.emplace_back("lidar2global_rotation", torch::eye(3, torch::kDouble).repeat({2, 1, 1}));
  const fs::path dir = test::scratch_dir("fixture_batch_original");
  const Batch batch = read_fixture_batch(written(original, dir / "original.pt"), true);
  const Batch older = read_fixture_batch(written(two_frame_input(), dir / "older.pt"), true);
  ASSERT_EQ(batch.size(), 2);
  EXPECT_TRUE(batch.images.equal(older.images));
  EXPECT_TRUE(batch.can_bus.equal(older.can_bus));
  for (size_t b = 0; b < 2; ++b) {
    EXPECT_TRUE(batch.gt_lc[b].equal(older.gt_lc[b]));
    EXPECT_TRUE(batch.gt_topology_lcte[b].equal(older.gt_topology_lcte[b]));
    EXPECT_EQ(batch.metas[b].crop_shape, (std::vector<std::array<int64_t, 2>>{{0, 2}, {0, 2}}));
  }
  // The detectors run the first-frame path: a longer queue is refused.
  NamedTensors queued = original;
  queued[0].second = torch::cat({queued[0].second, queued[0].second}, 1);
  try {
    read_fixture_batch(written(queued, dir / "queued.pt"), true);
    FAIL() << "a queue of two accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("queued.pt: key `img`: a queue of 2 frames"),
              std::string::npos)
        << error.what();
  }
}

TEST(FixtureBatch, AFrameOutOfRangeOrMissingGroundTruthNamesTheFileAndKey) {
  const fs::path dir = test::scratch_dir("fixture_batch_errors");
  const fs::path file = written(two_frame_input(), dir / "two.pt");
  const auto message = [](const std::function<void()>& read) {
    try {
      read();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([&] {
              read_fixture_batch(file, true, {2});
            }).find("two.pt: frame 2 asked for, the file has 2"),
            std::string::npos);
  NamedTensors without_gt = two_frame_input();
  without_gt.pop_back();  // gt_topology_lcte.1
  const fs::path partial = written(without_gt, dir / "partial.pt");
  EXPECT_NE(message([&] {
              read_fixture_batch(partial, true);
            }).find("partial.pt: key `gt_lane_lcte_adj.1` missing"),
            std::string::npos);
  EXPECT_NO_THROW(read_fixture_batch(partial, true, {0}));
  NamedTensors short_can_bus = two_frame_input();
  short_can_bus[5].second = torch::zeros({1, 18}, torch::kDouble);
  EXPECT_NE(message([&] {
              read_fixture_batch(written(short_can_bus, dir / "short.pt"), false);
            }).find("key `can_bus`: 1 frames, `img` has 2"),
            std::string::npos);
}

Batch scaled_sample_input() {
  Batch batch;
  // Two cameras, valid 6 x 8 inside a 8 x 8 padded image.
  batch.images = torch::zeros({1, 2, 3, 8, 8});
  batch.images.narrow(3, 0, 6).copy_(torch::rand({1, 2, 3, 6, 8}));
  batch.lidar2img = torch::eye(4, torch::kDouble).repeat({1, 2, 1, 1});
  batch.lidar2img[0][1][0][2] = 4.0;  // principal point x of camera 1
  batch.can_bus = torch::zeros({1, 18}, torch::kDouble);
  ImageMeta meta;
  meta.img_shape = {{6, 8, 3}, {6, 8, 3}};
  meta.pad_shape = {{8, 8, 3}, {8, 8, 3}};
  batch.metas.push_back(meta);
  batch.gt_te = {torch::tensor({{1.0f, 2.0f, 3.0f, 4.0f}})};
  return batch;
}

TEST(FixtureSample, ScalingResizesTheValidImageAndTheProjection) {
  const Batch in = scaled_sample_input();
  const Batch out = scale_fixture_sample(in, 2);
  ASSERT_EQ(out.images.sizes(), (std::vector<int64_t>{1, 2, 3, 16, 16}));
  EXPECT_EQ(out.metas[0].img_shape[1], (std::array<int64_t, 3>{12, 16, 3}));
  EXPECT_EQ(out.metas[0].pad_shape[0], (std::array<int64_t, 3>{16, 16, 3}));
  // The padding stays zero; the valid part is the bilinear resize of the valid part.
  EXPECT_EQ(out.images.narrow(3, 12, 4).abs().max().item<float>(), 0.0f);
  const at::Tensor expected = torch::nn::functional::interpolate(
      in.images[0].narrow(2, 0, 6), torch::nn::functional::InterpolateFuncOptions()
                                        .size(std::vector<int64_t>{12, 16})
                                        .mode(torch::kBilinear)
                                        .align_corners(false));
  EXPECT_TRUE(torch::equal(out.images[0].narrow(2, 0, 12), expected));
  // A point at depth 2 projects to twice its pixel coordinates.
  const at::Tensor point = torch::tensor({3.0, 1.0, 2.0, 1.0}, torch::kDouble);
  const at::Tensor before = torch::matmul(in.lidar2img[0][1], point);
  const at::Tensor after = torch::matmul(out.lidar2img[0][1], point);
  EXPECT_DOUBLE_EQ((after[0] / after[2]).item<double>(),
                   2 * (before[0] / before[2]).item<double>());
  EXPECT_DOUBLE_EQ((after[1] / after[2]).item<double>(),
                   2 * (before[1] / before[2]).item<double>());
  EXPECT_TRUE(torch::equal(out.gt_te[0], in.gt_te[0] * 2));
  // The input is left as it was.
  EXPECT_EQ(in.lidar2img[0][1][0][2].item<double>(), 4.0);
}

TEST(FixtureSample, ScaleOneIsTheSampleAndBelowOneIsAnError) {
  const Batch in = scaled_sample_input();
  EXPECT_TRUE(torch::equal(scale_fixture_sample(in, 1).images, in.images));
  EXPECT_THROW(scale_fixture_sample(in, 0), std::exception);
}

}  // namespace
}  // namespace olv2
