// The synthetic dataset generator: format, determinism, and that images show what the
// annotations say.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <sstream>

#include "olv2/data/frame_reader.h"
#include "olv2/data/pipeline_data.h"
#include "olv2/data/synthetic/camera_rig.h"
#include "olv2/data/synthetic/renderer.h"
#include "olv2/data/synthetic/synthetic_dataset.h"
#include "olv2/util/error.h"
#include "support/run_command.h"
#include "support/temp_files.h"
#include "support/test_paths.h"

namespace fs = std::filesystem;
using olv2::synthetic::SyntheticDataOptions;

namespace {

SyntheticDataOptions small_options(const fs::path& out, uint64_t seed = 7) {
  SyntheticDataOptions options;
  options.out = out;
  options.frames = 6;
  options.val_frames = 2;
  options.seed = seed;
  options.image_scale = 0.25;
  return options;
}

// Every regular file under `root`, relative path -> bytes.
std::map<std::string, std::string> tree(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) {
      files[fs::relative(entry.path(), root).string()] = olv2::test::read_file(entry.path());
    }
  }
  return files;
}

// Pixel distance (max over channels) to the centerline colour.
int colour_distance(const cv::Vec3b& pixel) {
  const cv::Vec3b& lane = olv2::synthetic::centerline_colour();
  int distance = 0;
  for (int c = 0; c < 3; ++c) {
    distance = std::max(distance, std::abs(pixel[c] - lane[c]));
  }
  return distance;
}

}  // namespace

TEST(SyntheticData, SameSeedWritesIdenticalFilesOtherSeedDiffers) {
  const fs::path first = olv2::test::scratch_dir("synthetic_seed_a");
  const fs::path second = olv2::test::scratch_dir("synthetic_seed_b");
  const fs::path other = olv2::test::scratch_dir("synthetic_seed_c");
  olv2::synthetic::make_synthetic_data(small_options(first));
  olv2::synthetic::make_synthetic_data(small_options(second));
  olv2::synthetic::make_synthetic_data(small_options(other, 8));
  const auto files = tree(first);
  EXPECT_EQ(files.size(), 1u + 6u * 8u);  // collection + per frame 1 JSON and 7 JPEGs
  EXPECT_TRUE(files == tree(second));
  const auto other_files = tree(other);
  ASSERT_EQ(files.size(), other_files.size());
  int differing = 0;
  for (const auto& [name, bytes] : files) {
    differing += other_files.count(name) == 0 || other_files.at(name) != bytes;
  }
  EXPECT_GT(differing, 40);
}

TEST(SyntheticData, CollectionSplitsFramesIntoTrainAndValSegments) {
  const fs::path root = olv2::test::scratch_dir("synthetic_layout");
  SyntheticDataOptions options = small_options(root);
  options.frames = 21;
  options.val_frames = 5;
  options.write_images = false;
  const auto summary = olv2::synthetic::make_synthetic_data(options);
  const auto collection =
      nlohmann::ordered_json::parse(olv2::test::read_file(summary.collection_file));
  std::vector<std::string> splits;
  for (const auto& split : collection.items()) {
    splits.push_back(split.key());
  }
  EXPECT_EQ(splits, (std::vector<std::string>{"train", "val"}));
  const auto train = olv2::read_collection(summary.collection_file, "train");
  const auto val = olv2::read_collection(summary.collection_file, "val");
  EXPECT_EQ(train.size(), 16u);
  EXPECT_EQ(val.size(), 5u);
  EXPECT_EQ(train.front().segment_id.size(), 5u);
  EXPECT_EQ(train.front().timestamp.size(), 18u);
  EXPECT_FALSE(fs::exists(root / "train" / train.front().segment_id / "image"));
}

// TopoNet's filter_map_change: a segment whose frames come from an excluded log (its first
// frame's meta_data.source_id) is left out of the index, every frame of it; a frame limit
// takes the first frames of the rest.
TEST(SyntheticData, ExcludedSourcesLeaveTheirSegmentsOutOfTheIndex) {
  const fs::path root = olv2::test::scratch_dir("synthetic_sources");
  SyntheticDataOptions options = small_options(root);
  options.frames = 8;
  options.val_frames = 2;
  options.write_images = false;
  const auto summary = olv2::synthetic::make_synthetic_data(options);
  const olv2::FrameIndex all(root, summary.collection_file, "train");
  ASSERT_EQ(all.size(), 6u);
  const std::string first = all.key(0).segment_id;
  olv2::FrameReadOptions read;
  read.excluded_sources = {"synthetic-" + first, "a-log-not-in-the-data"};
  const olv2::FrameIndex kept(root, summary.collection_file, "train", read);
  ASSERT_EQ(kept.size(), 4u);
  for (const olv2::FrameKey& key : kept.keys()) EXPECT_NE(key.segment_id, first);

  // --max-frames: the first frames of what is left, in collection order.
  read.max_frames = 3;
  const olv2::FrameIndex limited(root, summary.collection_file, "train", read);
  ASSERT_EQ(limited.size(), 3u);
  for (size_t i = 0; i < limited.size(); ++i) {
    EXPECT_EQ(limited.key(i).segment_id, kept.key(i).segment_id);
    EXPECT_EQ(limited.key(i).timestamp, kept.key(i).timestamp);
  }
  read.max_frames = 100;
  EXPECT_EQ(olv2::FrameIndex(root, summary.collection_file, "train", read).size(), 4u);
}

// --test-frames adds a `test` split after the others whose frames carry no `annotation`, as
// the real test split's: the reader takes them, unannotated.
TEST(SyntheticData, TestFramesFormAnUnannotatedSplit) {
  const fs::path root = olv2::test::scratch_dir("synthetic_test_split");
  SyntheticDataOptions options = small_options(root);
  options.frames = 4;
  options.val_frames = 2;
  options.test_frames = 3;
  options.write_images = false;
  const auto summary = olv2::synthetic::make_synthetic_data(options);
  EXPECT_EQ(summary.test_frames, 3);
  EXPECT_EQ(olv2::read_collection_splits(summary.collection_file),
            (std::vector<std::string>{"train", "val", "test"}));
  const olv2::FrameIndex test(root, summary.collection_file, "test");
  ASSERT_EQ(test.size(), 3u);
  EXPECT_EQ(test.key(0).segment_id, "20000");
  for (size_t i = 0; i < test.size(); ++i) {
    const std::string text = olv2::test::read_file(olv2::frame_info_path(root, test.key(i)));
    EXPECT_EQ(text.find("annotation"), std::string::npos) << text.substr(0, 200);
    EXPECT_FALSE(test.load(i).has_annotation);
  }
  const olv2::FrameIndex val(root, summary.collection_file, "val");
  EXPECT_TRUE(val.load(0).has_annotation);
}

// Every frame loads through the reader with 201-point centerlines, consistent topology and the
// real camera layout, and nothing is logged as a warning.
TEST(SyntheticData, EveryFramePassesTheReaderWithoutWarnings) {
  const fs::path root = olv2::test::scratch_dir("synthetic_reader");
  const auto summary = olv2::synthetic::make_synthetic_data(small_options(root));
  std::ostringstream log;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(log);
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("capture", sink));

  const std::vector<std::string> names = olv2::subset_camera_names(olv2::Subset::kA);
  size_t frames = 0;
  for (const char* split : {"train", "val"}) {
    const olv2::FrameIndex index(root, summary.collection_file, split,
                                 olv2::FrameReadOptions{1, std::nullopt, {}, std::nullopt});
    for (size_t i = 0; i < index.size(); ++i) {
      const olv2::Frame frame = index.load(i);
      ++frames;
      ASSERT_EQ(frame.cameras.size(), names.size());
      for (size_t c = 0; c < names.size(); ++c) {
        EXPECT_EQ(frame.cameras[c].name, names[c]);
        const cv::Mat image = cv::imread((root / frame.cameras[c].image_path).string());
        ASSERT_FALSE(image.empty()) << frame.cameras[c].image_path;
        // Front 1550x2048 portrait, others 2048x1550, at scale 0.25.
        EXPECT_EQ(image.cols, c == 0 ? 388 : 512);
        EXPECT_EQ(image.rows, c == 0 ? 512 : 388);
      }
      ASSERT_TRUE(frame.has_annotation);
      ASSERT_GE(frame.num_lanes(), 4u);
      for (const auto& lane : frame.lanes) {
        EXPECT_EQ(lane.num_points(), 201);
      }
      EXPECT_EQ(frame.topology_lclc.size(), frame.num_lanes() * frame.num_lanes());
      EXPECT_EQ(frame.topology_lcte.size(), frame.num_lanes() * frame.num_traffic_elements());
      EXPECT_NO_THROW(olv2::make_pipeline_data(frame, root.string()));
    }
  }
  spdlog::set_default_logger(previous);
  EXPECT_EQ(frames, 6u);
  EXPECT_EQ(log.str(), "");
}

// A 3-D centerline point of the annotation, projected with the reader's lidar2img, lands on a
// pixel of the centerline colour in every camera that sees it.
TEST(SyntheticData, AnnotatedLanePointsProjectOntoDrawnLanes) {
  const fs::path root = olv2::test::scratch_dir("synthetic_projection");
  const auto summary = olv2::synthetic::make_synthetic_data(small_options(root));
  const olv2::FrameIndex index(root, summary.collection_file, "train",
                               olv2::FrameReadOptions{1, std::nullopt, {}, std::nullopt});
  int checked = 0;
  int on_lane = 0;
  for (size_t i = 0; i < index.size(); ++i) {
    const olv2::Frame frame = index.load(i);
    const olv2::PipelineData data = olv2::make_pipeline_data(frame, root.string());
    for (size_t c = 0; c < frame.cameras.size(); ++c) {
      const cv::Mat image = cv::imread((root / frame.cameras[c].image_path).string());
      cv::Matx44d projection;
      for (int k = 0; k < 16; ++k) {
        projection.val[k] = data.lidar2img[c][static_cast<size_t>(k)];
      }
      for (const auto& lane : frame.lanes) {
        for (int p = 0; p < lane.num_points(); p += 5) {
          const cv::Vec3d point(lane.points[3 * p], lane.points[3 * p + 1], lane.points[3 * p + 2]);
          const auto hit = olv2::synthetic::project(projection, point, 3.0);
          if (!hit || hit->depth > 25.0) {
            continue;
          }
          const cv::Point pixel(static_cast<int>(std::lround(hit->pixel.x)),
                                static_cast<int>(std::lround(hit->pixel.y)));
          const cv::Rect inner(2, 2, image.cols - 4, image.rows - 4);
          bool in_element = false;
          for (const auto& element : frame.traffic_elements) {
            in_element |= c == 0 && cv::Rect2d(cv::Point2d(element.x1 - 3, element.y1 - 3),
                                               cv::Point2d(element.x2 + 3, element.y2 + 3))
                                        .contains(hit->pixel);
          }
          if (!inner.contains(pixel) || in_element) {
            continue;
          }
          int best = 255;
          for (int dy = -1; dy <= 1; ++dy) {
            for (int dx = -1; dx <= 1; ++dx) {
              best =
                  std::min(best, colour_distance(image.at<cv::Vec3b>(pixel.y + dy, pixel.x + dx)));
            }
          }
          ++checked;
          // JPEG blurs colours; anything this close to the lane colour is not background.
          on_lane += best < 60;
        }
      }
    }
  }
  EXPECT_GT(checked, 100);  // enough visible points to mean something
  EXPECT_GE(on_lane, checked * 97 / 100) << on_lane << " of " << checked;
}

// The generator's own projection (used to draw) equals the reader's for every camera.
TEST(SyntheticData, RendererProjectionEqualsReaderLidar2img) {
  const fs::path root = olv2::test::scratch_dir("synthetic_lidar2img");
  SyntheticDataOptions options = small_options(root);
  options.write_images = false;
  const auto summary = olv2::synthetic::make_synthetic_data(options);
  const olv2::FrameIndex index(root, summary.collection_file, "val");
  const olv2::Frame frame = index.load(0);
  const olv2::PipelineData data = olv2::make_pipeline_data(frame, root.string());
  for (size_t c = 0; c < frame.cameras.size(); ++c) {
    olv2::synthetic::SyntheticCamera camera;
    for (int k = 0; k < 9; ++k) {
      camera.K.val[k] = frame.cameras[c].K[static_cast<size_t>(k)];
      camera.R.val[k] = frame.cameras[c].R[static_cast<size_t>(k)];
    }
    camera.t = cv::Vec3d(frame.cameras[c].t[0], frame.cameras[c].t[1], frame.cameras[c].t[2]);
    const cv::Matx44d mine = olv2::synthetic::lidar2img(camera);
    for (int k = 0; k < 16; ++k) {
      EXPECT_NEAR(mine.val[k], data.lidar2img[c][static_cast<size_t>(k)], 1e-9);
    }
  }
}

TEST(SyntheticData, AppRejectsMoreValFramesThanFrames) {
  const fs::path root = olv2::test::scratch_dir("synthetic_app");
  const auto result = olv2::test::run_app(
      "make_synthetic_data", "--out-dir " + root.string() + " --frames 4 --val-frames 5");
  EXPECT_EQ(result.exit_status, 2) << result.output;
  EXPECT_NE(result.output.find("make_synthetic_data: error: --val-frames 5"), std::string::npos)
      << result.output;
}

TEST(SyntheticData, AppWritesAnnotationsOnlyWithNoImages) {
  const fs::path root = olv2::test::scratch_dir("synthetic_app_no_images");
  const auto result =
      olv2::test::run_app("make_synthetic_data",
                          "--out-dir " + root.string() + " --frames 3 --val-frames 1 --no-images");
  ASSERT_EQ(result.exit_status, 0) << result.output;
  const auto train = olv2::read_collection(root / "data_dict_synthetic.json", "train");
  ASSERT_EQ(train.size(), 2u);
  EXPECT_TRUE(fs::exists(olv2::frame_info_path(root, train[0])));
  EXPECT_FALSE(fs::exists(root / "train" / train[0].segment_id / "image"));
}

// v2.x frames: lane segments whose boundaries lie half a lane either side of their centerline,
// a pedestrian crossing and two road boundaries, both topologies, read as the devkit's `_ls`
// collection resamples them. The scenes are the v1.x ones of the same seed, and the front images
// differ from those only around the crossing's annotated outline: that is where it is painted.
TEST(SyntheticData, LaneSegmentFramesPassTheReaderAndShowTheirCrossing) {
  const fs::path root = olv2::test::scratch_dir("synthetic_lane_segments");
  const fs::path centerline_root = olv2::test::scratch_dir("synthetic_lane_segments_v1");
  SyntheticDataOptions options = small_options(root);
  options.format = olv2::FrameFormat::kLaneSegment;
  options.test_frames = 1;
  const auto summary = olv2::synthetic::make_synthetic_data(options);
  options.out = centerline_root;
  options.format = olv2::FrameFormat::kLaneCenterline;
  const auto centerline_summary = olv2::synthetic::make_synthetic_data(options);
  olv2::FrameReadOptions read;
  read.kind = olv2::CollectionKind::kLaneSegment;
  int64_t changed_around = 0, changed_elsewhere = 0, frames = 0;
  for (const char* split : {"train", "val"}) {
    const olv2::FrameIndex index(root, summary.collection_file, split, read);
    const olv2::FrameIndex centerline_index(centerline_root, centerline_summary.collection_file,
                                            split);
    for (size_t i = 0; i < index.size(); ++i) {
      const olv2::Frame frame = index.load(i);
      ASSERT_EQ(frame.format, olv2::FrameFormat::kLaneSegment);
      const olv2::Frame centerline_frame = centerline_index.load(i);
      ASSERT_EQ(frame.lane_segments.size(), centerline_frame.lanes.size());
      ASSERT_GE(frame.lane_segments.size(), 4u);
      for (size_t l = 0; l < frame.lane_segments.size(); ++l) {
        const olv2::LaneSegment& segment = frame.lane_segments[l];
        EXPECT_EQ(segment.id, centerline_frame.lanes[l].id);
        ASSERT_EQ(segment.centerline.size(), 30u);
        for (int k = 0; k < 10; ++k) {
          const float* left = &segment.left_laneline[3 * k];
          const float* right = &segment.right_laneline[3 * k];
          const float* centre = &segment.centerline[3 * k];
          const double width = std::hypot(left[0] - right[0], left[1] - right[1]);
          EXPECT_GT(width, 3.15);
          EXPECT_LT(width, 3.85);
          EXPECT_NEAR((left[0] + right[0]) / 2, centre[0], 0.05);
          EXPECT_NEAR((left[1] + right[1]) / 2, centre[1], 0.05);
        }
      }
      ASSERT_EQ(frame.areas.size(), 3u);
      EXPECT_EQ(frame.areas[0].category, olv2::kPedestrianCrossing);
      EXPECT_EQ(frame.areas[0].num_points(), 20);
      EXPECT_EQ(frame.areas[1].category, olv2::kRoadBoundary);
      EXPECT_EQ(frame.topology_lsls, centerline_frame.topology_lclc);
      EXPECT_EQ(frame.topology_lste, centerline_frame.topology_lcte);

      // The crossing's outline in the front image, widened by a JPEG block.
      const olv2::PipelineData data = olv2::make_pipeline_data(frame, root.string());
      cv::Matx44d projection;
      for (int k = 0; k < 16; ++k) projection.val[k] = data.lidar2img[0][static_cast<size_t>(k)];
      std::vector<cv::Point> outline;
      const olv2::Area& crossing = frame.areas[0];
      for (int p = 0; p < crossing.num_points(); ++p) {
        const auto hit = olv2::synthetic::project(
            projection, cv::Vec3d(crossing.points[3 * p], crossing.points[3 * p + 1],
                                  crossing.points[3 * p + 2]));
        ASSERT_TRUE(hit.has_value());
        outline.emplace_back(static_cast<int>(std::lround(hit->pixel.x)),
                             static_cast<int>(std::lround(hit->pixel.y)));
      }
      cv::Rect around = cv::boundingRect(outline);
      around -= cv::Point(8, 8);
      around += cv::Size(16, 16);

      const cv::Mat image = cv::imread((root / frame.cameras[0].image_path).string());
      const cv::Mat without =
          cv::imread((centerline_root / centerline_frame.cameras[0].image_path).string());
      cv::Mat difference;
      cv::absdiff(image, without, difference);
      for (int y = 0; y < difference.rows; ++y) {
        for (int x = 0; x < difference.cols; ++x) {
          const cv::Vec3b& d = difference.at<cv::Vec3b>(y, x);
          if (std::max({d[0], d[1], d[2]}) <= 40) continue;
          ++(around.contains({x, y}) ? changed_around : changed_elsewhere);
        }
      }
      ++frames;
    }
  }
  EXPECT_GE(changed_around, 20 * frames);
  EXPECT_EQ(changed_elsewhere, 0);

  olv2::FrameReadOptions lanesegnet = read;
  lanesegnet.kind = olv2::CollectionKind::kLaneSegNet;
  const olv2::Frame raw =
      olv2::FrameIndex(root, summary.collection_file, "val", lanesegnet).load(0);
  EXPECT_EQ(raw.areas[0].num_points(), 5);
  const olv2::Frame test = olv2::FrameIndex(root, summary.collection_file, "test", read).load(0);
  EXPECT_FALSE(test.has_annotation);
}
