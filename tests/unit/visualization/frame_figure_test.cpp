// The frame pictures of `visualize` and `evaluation.visualize`: each thing is drawn where its
// geometry says, checked pixel by pixel against the colours of the palette, on a synthetic frame.
#include "olv2/visualization/frame_figure.h"

#include <gtest/gtest.h>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "olv2/data/image_io.h"
#include "olv2/data/synthetic/synthetic_dataset.h"
#include "olv2/util/error.h"
#include "olv2/visualization/bev_panel.h"
#include "olv2/visualization/palette.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

struct SyntheticSplit {
  fs::path root;
  fs::path collection;
};

const SyntheticSplit& dataset() {
  static const SyntheticSplit split = [] {
    synthetic::SyntheticDataOptions options;
    options.out = test::shared_scratch_dir("frame_figure_data");
    options.frames = 4;
    options.val_frames = 2;
    options.seed = 5;
    const auto summary = synthetic::make_synthetic_data(options);
    return SyntheticSplit{options.out, summary.collection_file};
  }();
  return split;
}

FrameIndex val_index() { return FrameIndex(dataset().root, dataset().collection, "val"); }

cv::Mat front_image(const FrameIndex& index, const Frame& frame) {
  return decode_image((index.data_root() / frame.cameras[0].image_path).string());
}

bool colour_near(const cv::Mat& image, cv::Point2d at, const cv::Scalar& colour, int radius) {
  const cv::Vec3b wanted(static_cast<uchar>(colour[0]), static_cast<uchar>(colour[1]),
                         static_cast<uchar>(colour[2]));
  const int cx = static_cast<int>(std::lround(at.x));
  const int cy = static_cast<int>(std::lround(at.y));
  for (int y = cy - radius; y <= cy + radius; ++y) {
    for (int x = cx - radius; x <= cx + radius; ++x) {
      if (x >= 0 && y >= 0 && x < image.cols && y < image.rows &&
          image.at<cv::Vec3b>(y, x) == wanted) {
        return true;
      }
    }
  }
  return false;
}

// The share of `points` (figure pixels) that have `colour` within `radius` pixels.
double share_with_colour(const cv::Mat& image, const std::vector<cv::Point2d>& points,
                         const cv::Scalar& colour, int radius = 1) {
  if (points.empty()) return 0.0;
  size_t hits = 0;
  for (const cv::Point2d& p : points) hits += colour_near(image, p, colour, radius) ? 1 : 0;
  return static_cast<double>(hits) / static_cast<double>(points.size());
}

// Points every `step_m` along a lane, in the figure's BEV pixels: ppm = panel height over the
// range plus a 4 % margin each side, x forward up, y left left (computed here, not by BevView).
std::vector<cv::Point2d> bev_pixels(const FrameFigure& figure, const BevArea& area,
                                    const std::vector<std::array<float, 3>>& lane,
                                    double step_m = 1.0) {
  const double margin = 0.04 * (area.x_max - area.x_min);
  const double ppm = figure.bev_rect.height / (area.x_max - area.x_min + 2 * margin);
  std::vector<cv::Point2d> pixels;
  for (size_t k = 1; k < lane.size(); ++k) {
    const double length = std::hypot(lane[k][0] - lane[k - 1][0], lane[k][1] - lane[k - 1][1]);
    const int steps = std::max(1, static_cast<int>(length / step_m));
    for (int s = 0; s < steps; ++s) {
      const double f = static_cast<double>(s) / steps;
      const double x = lane[k - 1][0] + f * (lane[k][0] - lane[k - 1][0]);
      const double y = lane[k - 1][1] + f * (lane[k][1] - lane[k - 1][1]);
      pixels.emplace_back(figure.bev_rect.x + (area.y_max + margin - y) * ppm,
                          figure.bev_rect.y + (area.x_max + margin - x) * ppm);
    }
  }
  return pixels;
}

// The front camera's pinhole projection of a lane's points in front of it (p_cam = R^T (p - t),
// pixel = K p_cam / z), scaled to the panel and placed in the figure.
std::vector<cv::Point2d> front_pixels(const FrameFigure& figure, const CameraInfo& camera,
                                      cv::Size image_size,
                                      const std::vector<std::array<float, 3>>& lane) {
  const cv::Matx33d K(camera.K.data());
  const cv::Matx33d R(camera.R.data());
  const cv::Vec3d t(camera.t.data());
  const double scale = static_cast<double>(figure.front_rect.height) / image_size.height;
  std::vector<cv::Point2d> pixels;
  for (const auto& p : lane) {
    const cv::Vec3d in_camera = R.t() * (cv::Vec3d(p[0], p[1], p[2]) - t);
    if (in_camera[2] < 1.0) continue;
    const cv::Vec3d uv = K * in_camera;
    const cv::Point2d pixel(figure.front_rect.x + uv[0] / uv[2] * scale,
                            figure.front_rect.y + uv[1] / uv[2] * scale);
    if (figure.front_rect.contains(cv::Point(static_cast<int>(pixel.x), static_cast<int>(pixel.y))))
      pixels.push_back(pixel);
  }
  return pixels;
}

Frame without_annotations(Frame frame) {
  frame.lanes.clear();
  frame.traffic_elements.clear();
  frame.topology_lclc.clear();
  frame.topology_lcte.clear();
  return frame;
}

std::vector<std::array<float, 3>> shifted(const std::vector<std::array<float, 3>>& lane, float dy) {
  std::vector<std::array<float, 3>> out = lane;
  for (auto& p : out) p[1] += dy;
  return out;
}

TEST(FrameFigure, GroundTruthLanesAreDrawnWhereTheirMetresSayInTheBirdsEyePanel) {
  const FrameIndex index = val_index();
  const Frame frame = index.load(0);
  ASSERT_GT(frame.num_lanes(), 0u);
  FigureOptions options;
  const FrameFigure figure = draw_frame_figure(frame, front_image(index, frame), nullptr, options);
  const FrameFigure empty =
      draw_frame_figure(without_annotations(frame), front_image(index, frame), nullptr, options);
  for (const LaneCenterline& lane : frame.lanes) {
    const std::vector<cv::Point2d> pixels =
        bev_pixels(figure, options.range, polyline_points(lane.points));
    EXPECT_GE(share_with_colour(figure.image, pixels, palette::ground_truth_lane()), 0.95)
        << "lane " << lane.id;
    EXPECT_LE(share_with_colour(empty.image, pixels, palette::ground_truth_lane()), 0.0)
        << "lane " << lane.id;
  }
}

// v2.x frames: each boundary drawn as its line type says (solid ones continuous in the boundary
// colour), the areas in their category's colour, the centerlines as lanes.
TEST(FrameFigure, LaneSegmentBoundariesAndAreasAreDrawnWhereTheirMetresSay) {
  synthetic::SyntheticDataOptions data;
  data.out = test::scratch_dir("frame_figure_lane_segments");
  data.frames = 2;
  data.val_frames = 2;
  data.seed = 7;
  data.format = FrameFormat::kLaneSegment;
  const auto summary = synthetic::make_synthetic_data(data);
  FrameReadOptions read;
  read.kind = CollectionKind::kLaneSegment;
  const FrameIndex index(data.out, summary.collection_file, "val", read);
  const Frame frame = index.load(0);
  ASSERT_GT(frame.lane_segments.size(), 0u);
  ASSERT_GT(frame.areas.size(), 0u);
  FigureOptions options;
  const FrameFigure figure = draw_frame_figure(frame, front_image(index, frame), nullptr, options);
  int solid_boundaries = 0;
  for (const LaneSegment& segment : frame.lane_segments) {
    EXPECT_GE(
        share_with_colour(figure.image,
                          bev_pixels(figure, options.range, polyline_points(segment.centerline)),
                          palette::ground_truth_lane()),
        0.9)
        << "lane segment " << segment.id;
    for (const auto& [line, type] :
         {std::make_pair(&segment.left_laneline, segment.left_laneline_type),
          std::make_pair(&segment.right_laneline, segment.right_laneline_type)}) {
      if (type != 1) continue;
      ++solid_boundaries;
      // The outermost boundaries lie under the road boundary drawn over them.
      const std::vector<cv::Point2d> pixels =
          bev_pixels(figure, options.range, polyline_points(*line));
      EXPECT_GE(std::max(share_with_colour(figure.image, pixels, palette::ground_truth_boundary()),
                         share_with_colour(figure.image, pixels,
                                           palette::area(static_cast<int>(kRoadBoundary), false))),
                0.7)
          << "lane segment " << segment.id;
    }
  }
  EXPECT_GT(solid_boundaries, 0);
  for (const Area& area : frame.areas) {
    EXPECT_GE(share_with_colour(figure.image,
                                bev_pixels(figure, options.range, polyline_points(area.points)),
                                palette::area(static_cast<int>(area.category), false)),
              0.8)
        << "area " << area.id;
  }
}

TEST(FrameFigure, TheEgoCarSitsAtTheOriginOfTheBirdsEyePanel) {
  const FrameIndex index = val_index();
  const Frame frame = index.load(0);
  FigureOptions options;
  const FrameFigure figure =
      draw_frame_figure(without_annotations(frame), front_image(index, frame), nullptr, options);
  // A symmetric range puts the origin at the panel's centre.
  const cv::Point2d centre(figure.bev_rect.x + figure.bev_rect.width / 2.0,
                           figure.bev_rect.y + figure.bev_rect.height / 2.0);
  EXPECT_TRUE(colour_near(figure.image, centre, palette::ego(), 0));
  EXPECT_FALSE(colour_near(figure.image, centre + cv::Point2d(0, -60), palette::ego(), 2));
}

TEST(FrameFigure, TrafficElementBoxesAndLaneProjectionsLandOnTheFrontPanel) {
  const FrameIndex index = val_index();
  const Frame frame = index.load(0);
  ASSERT_GT(frame.num_traffic_elements(), 0u);
  const cv::Mat image = front_image(index, frame);
  const FrameFigure figure = draw_frame_figure(frame, image, nullptr, FigureOptions{});
  // Without the traffic elements, whose links end on the lanes.
  Frame lanes_only = frame;
  lanes_only.traffic_elements.clear();
  lanes_only.topology_lcte.clear();
  const FrameFigure lanes_figure = draw_frame_figure(lanes_only, image, nullptr, FigureOptions{});
  const double scale = static_cast<double>(figure.front_rect.height) / image.rows;
  for (const TrafficElement& element : frame.traffic_elements) {
    const cv::Scalar& colour = palette::traffic_element(static_cast<int>(element.attribute));
    const auto at = [&](double u, double v) {
      return cv::Point2d(figure.front_rect.x + u * scale, figure.front_rect.y + v * scale);
    };
    EXPECT_TRUE(
        colour_near(figure.image, at(0.5 * (element.x1 + element.x2), element.y1), colour, 2))
        << "top edge of element " << element.id;
    EXPECT_TRUE(
        colour_near(figure.image, at(element.x1, 0.5 * (element.y1 + element.y2)), colour, 2))
        << "left edge of element " << element.id;
  }
  size_t checked = 0;
  for (const LaneCenterline& lane : frame.lanes) {
    const std::vector<cv::Point2d> pixels =
        front_pixels(lanes_figure, frame.cameras[0], image.size(), polyline_points(lane.points));
    if (pixels.size() < 3) continue;
    EXPECT_GE(share_with_colour(lanes_figure.image, pixels, palette::ground_truth_lane()), 0.95)
        << "lane " << lane.id;
    ++checked;
  }
  EXPECT_GT(checked, 0u) << "no lane in front of the camera";
}

TEST(FrameFigure, PredictionsAtOrAboveTheThresholdAreDrawnDashedTheOthersNot) {
  const FrameIndex index = val_index();
  const Frame frame = index.load(0);
  const std::vector<std::array<float, 3>> truth = polyline_points(frame.lanes.at(0).points);
  FramePrediction prediction;
  prediction.frame = {frame.split, frame.segment_id, frame.timestamp};
  prediction.lanes = {{shifted(truth, 3.0f), 0.9f}, {shifted(truth, -3.0f), 0.1f}};
  prediction.topology_lclc = {0.0f, 0.0f, 0.0f, 0.0f};
  FigureOptions options;
  options.score_threshold = 0.5f;
  const FrameFigure figure = draw_frame_figure(without_annotations(frame),
                                               front_image(index, frame), &prediction, options);
  // Sampled densely on the line itself: the dashes cover part of its length and leave gaps.
  const double shown = share_with_colour(
      figure.image, bev_pixels(figure, options.range, prediction.lanes[0].points, 0.2),
      palette::predicted_lane(), 0);
  EXPECT_GE(shown, 0.4);
  EXPECT_LE(shown, 0.85);
  EXPECT_EQ(
      share_with_colour(figure.image, bev_pixels(figure, options.range, prediction.lanes[1].points),
                        palette::predicted_lane()),
      0.0);
}

TEST(FrameFigure, TheFigureHasTheSameReadableSizeAtAnyImageScale) {
  const FrameIndex index = val_index();
  const Frame frame = index.load(0);
  const cv::Mat small = front_image(index, frame);
  cv::Mat full;
  cv::resize(small, full, cv::Size(), 8.0, 8.0, cv::INTER_LINEAR);
  Frame full_frame = frame;
  for (CameraInfo& camera : full_frame.cameras) {
    for (size_t k : {0, 1, 2, 4, 5}) camera.K[k] *= 8.0;
  }
  for (TrafficElement& element : full_frame.traffic_elements) {
    element.x1 *= 8;
    element.y1 *= 8;
    element.x2 *= 8;
    element.y2 *= 8;
  }
  const FrameFigure a = draw_frame_figure(frame, small, nullptr, FigureOptions{});
  const FrameFigure b = draw_frame_figure(full_frame, full, nullptr, FigureOptions{});
  EXPECT_GE(a.image.cols, 800);
  EXPECT_GE(a.image.rows, 400);
  EXPECT_EQ(a.image.size(), b.image.size());
  EXPECT_EQ(a.front_rect, b.front_rect);
}

TEST(FrameFigure, WritesOnePngPerFrameAndNamesAFrameThePredictionsLack) {
  const FrameIndex index = val_index();
  const fs::path out = test::scratch_dir("frame_figure_out") / "pictures";
  const auto written = write_frame_figures(index, nullptr, 5, FigureOptions{}, out);
  ASSERT_EQ(written.size(), index.size());
  for (size_t i = 0; i < written.size(); ++i) {
    EXPECT_EQ(written[i].filename().string(),
              index.key(i).segment_id + "_" + index.key(i).timestamp + ".png");
    const cv::Mat read = cv::imread(written[i].string());
    EXPECT_GE(read.cols, 800);
    EXPECT_GE(read.rows, 400);
  }
  const std::vector<FramePrediction> none;
  try {
    write_frame_figures(index, &none, 1, FigureOptions{}, out);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(index.key(0).timestamp), std::string::npos)
        << error.what();
  }
}

TEST(FrameFigure, TheBevAreaIsTheRangesGroundRectangle) {
  const BevArea area = bev_area({-51.2, -25.6, -2.3, 51.2, 25.6, 1.7}, "large");
  EXPECT_DOUBLE_EQ(area.x_min, -51.2);
  EXPECT_DOUBLE_EQ(area.x_max, 51.2);
  EXPECT_DOUBLE_EQ(area.y_min, -25.6);
  EXPECT_DOUBLE_EQ(area.y_max, 25.6);
  try {
    bev_area({10.0, -25.0, -3.0, 10.0, 25.0, 2.0}, "empty.yaml");
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("empty.yaml: empty BEV range"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace olv2
