// v2.x lane-segment frames (`info/<timestamp>-ls.json`), read as the collection that names them
// resamples them, and refused with the key at fault.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "olv2/data/frame_reader.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

using Json = nlohmann::ordered_json;

Json line(std::vector<std::vector<double>> points) { return Json(std::move(points)); }

// Two lane segments of 3-point lines, a pedestrian crossing (a 3 x 4 m rectangle, closed), a road
// boundary and a traffic element.
Json lane_segment_frame() {
  Json frame;
  Json sensor = Json::object();
  for (const std::string& camera : subset_camera_names(Subset::kA)) {
    sensor[camera] = {
        {"image_path", "train/00001/image/" + camera + "/315.jpg"},
        {"extrinsic",
         {{"rotation", {{0, 0, 1}, {-1, 0, 0}, {0, -1, 0}}}, {"translation", {1.5, 0, 1.4}}}},
        {"intrinsic", {{"K", {{100, 0, 16}, {0, 100, 12}, {0, 0, 1}}}, {"distortion", {0, 0, 0}}}}};
  }
  frame["sensor"] = sensor;
  frame["pose"] = {{"rotation", {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}, {"translation", {10, 20, 0}}};
  Json segments = Json::array();
  for (int i = 0; i < 2; ++i) {
    const double y = 3.5 * i;
    segments.push_back({{"id", 10 + i},
                        {"centerline", line({{0, y, 0}, {5, y, 1}, {10, y, 2}})},
                        {"left_laneline", line({{0, y + 1.75, 0}, {10, y + 1.75, 2}})},
                        {"left_laneline_type", 2 - i},
                        {"right_laneline", line({{0, y - 1.75, 0}, {10, y - 1.75, 2}})},
                        {"right_laneline_type", 1},
                        {"is_intersection_or_connector", i == 1}});
  }
  Json areas = Json::array();
  areas.push_back({{"id", 30},
                   {"category", 1},
                   {"points", line({{0, 0, 0}, {0, 4, 0}, {3, 4, 0}, {3, 0, 0}, {0, 0, 0}})}});
  areas.push_back({{"id", 31}, {"category", 2}, {"points", line({{-5, -2, 0}, {15, -2, 0}})}});
  frame["annotation"] = {
      {"lane_segment", segments},
      {"traffic_element",
       {{{"id", 40}, {"category", 1}, {"attribute", 2}, {"points", {{1, 2}, {3, 6}}}}}},
      {"area", areas},
      {"topology_lsls", {{0, 1}, {0, 0}}},
      {"topology_lste", {{1}, {0}}}};
  return frame;
}

Frame parse(const Json& frame, CollectionKind kind) {
  FrameReadOptions options;
  options.kind = kind;
  return parse_frame(frame.dump(), "315-ls.json", {"train", "00001", "315"}, options);
}

std::string parse_error(const Json& frame) {
  try {
    parse(frame, CollectionKind::kLaneSegment);
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), ExitStatus::kBadInput);
    return error.what();
  }
  ADD_FAILURE() << "expected an error";
  return "";
}

// The devkit's `_ls` collection: every line resampled to 10 points by its length in (x, y), z
// along; every area to 20.
TEST(LaneSegmentFrame, ReadsTheFrameAsTheDevkitCollectsIt) {
  const Frame frame = parse(lane_segment_frame(), CollectionKind::kLaneSegment);
  EXPECT_EQ(frame.format, FrameFormat::kLaneSegment);
  ASSERT_TRUE(frame.has_annotation);
  EXPECT_TRUE(frame.lanes.empty());
  ASSERT_EQ(frame.lane_segments.size(), 2u);
  const LaneSegment& first = frame.lane_segments[0];
  EXPECT_EQ(first.id, 10);
  for (const std::vector<float>* points :
       {&first.centerline, &first.left_laneline, &first.right_laneline}) {
    ASSERT_EQ(points->size(), 30u);
  }
  for (int k = 0; k < 10; ++k) {
    EXPECT_NEAR(first.centerline[3 * k], 10.0 * k / 9, 1e-5) << k;
    EXPECT_NEAR(first.centerline[3 * k + 2], 2.0 * k / 9, 1e-5) << k;
    EXPECT_NEAR(first.left_laneline[3 * k + 1], 1.75, 1e-6) << k;
    EXPECT_NEAR(first.right_laneline[3 * k + 2], 2.0 * k / 9, 1e-5) << k;
  }
  EXPECT_EQ(first.left_laneline_type, 2);
  EXPECT_EQ(first.right_laneline_type, 1);
  EXPECT_FALSE(first.is_intersection_or_connector);
  EXPECT_EQ(frame.lane_segments[1].left_laneline_type, 1);
  EXPECT_TRUE(frame.lane_segments[1].is_intersection_or_connector);

  ASSERT_EQ(frame.areas.size(), 2u);
  const Area& crossing = frame.areas[0];
  EXPECT_EQ(crossing.category, kPedestrianCrossing);
  ASSERT_EQ(crossing.num_points(), 20);
  for (int k = 0; k < 20; ++k) {  // on the rectangle's outline, from its first corner back to it
    const float x = crossing.points[3 * k];
    const float y = crossing.points[3 * k + 1];
    const bool on_outline = std::abs(x) < 1e-5 || std::abs(x - 3) < 1e-5 || std::abs(y) < 1e-5 ||
                            std::abs(y - 4) < 1e-5;
    EXPECT_TRUE(on_outline) << k << ": " << x << ", " << y;
  }
  EXPECT_NEAR(crossing.points[3 * 19], 0, 1e-6);
  EXPECT_NEAR(crossing.points[3 * 19 + 1], 0, 1e-6);
  EXPECT_EQ(frame.areas[1].category, kRoadBoundary);
  EXPECT_EQ(frame.areas[1].num_points(), 20);

  ASSERT_EQ(frame.traffic_elements.size(), 1u);
  EXPECT_EQ(frame.lsls(0, 1), 1);
  EXPECT_EQ(frame.lsls(1, 0), 0);
  EXPECT_EQ(frame.lste(0, 0), 1);
  EXPECT_EQ(frame.lste(1, 0), 0);
}

// LaneSegNet's `_lanesegnet` collection keeps the areas as annotated (its crossings' 5 points).
TEST(LaneSegmentFrame, LaneSegNetsCollectionKeepsTheAreasAsAnnotated) {
  const Frame frame = parse(lane_segment_frame(), CollectionKind::kLaneSegNet);
  ASSERT_EQ(frame.areas.size(), 2u);
  EXPECT_EQ(frame.areas[0].points,
            (std::vector<float>{0, 0, 0, 0, 4, 0, 3, 4, 0, 3, 0, 0, 0, 0, 0}));
  EXPECT_EQ(frame.areas[1].num_points(), 2);
  EXPECT_EQ(frame.lane_segments[0].centerline.size(), 30u);
}

TEST(LaneSegmentFrame, RefusesWhatTheFormatForbidsNamingTheKey) {
  const auto expect = [](const Json& frame, const std::string& key, const std::string& problem) {
    const std::string error = parse_error(frame);
    EXPECT_NE(error.find("315-ls.json"), std::string::npos) << error;
    EXPECT_NE(error.find("key `" + key + "`"), std::string::npos) << error;
    EXPECT_NE(error.find(problem), std::string::npos) << error;
  };
  Json frame = lane_segment_frame();
  frame["annotation"]["lane_segment"][1]["id"] = 10;
  expect(frame, "annotation.lane_segment[1].id", "duplicate id 10");

  frame = lane_segment_frame();
  frame["annotation"]["lane_segment"][0]["right_laneline_type"] = 3;
  expect(frame, "annotation.lane_segment[0].right_laneline_type", "not a line type");

  frame = lane_segment_frame();
  frame["annotation"]["lane_segment"][1]["left_laneline"] = line({{0, 1, 0}});
  expect(frame, "annotation.lane_segment[1].left_laneline", "expected at least 2");

  frame = lane_segment_frame();
  frame["annotation"]["lane_segment"][0]["centerline"][1] = {5, 0};
  expect(frame, "annotation.lane_segment[0].centerline[1]", "expected a list of 3 numbers");

  frame = lane_segment_frame();
  frame["annotation"]["lane_segment"][0]["is_intersection_or_connector"] = 1;
  expect(frame, "annotation.lane_segment[0].is_intersection_or_connector", "true or false");

  frame = lane_segment_frame();
  frame["annotation"]["area"][1]["category"] = 3;
  expect(frame, "annotation.area[1].category", "not an area category");

  frame = lane_segment_frame();
  frame["annotation"]["area"][1]["id"] = 30;
  expect(frame, "annotation.area[1].id", "duplicate id 30");

  frame = lane_segment_frame();
  frame["annotation"]["topology_lsls"] = {{0, 1}};
  expect(frame, "annotation.topology_lsls", "has 1 rows, expected 2");

  frame = lane_segment_frame();
  frame["annotation"]["topology_lste"] = {{1, 0}, {0, 0}};
  expect(frame, "annotation.topology_lste[0]", "expected 1");

  frame = lane_segment_frame();
  frame["annotation"].erase("area");
  expect(frame, "annotation", "missing key `area`");

  // A v1.x frame read as a lane-segment one is refused by the key it lacks.
  frame = lane_segment_frame();
  frame["annotation"]["lane_centerline"] = frame["annotation"]["lane_segment"];
  frame["annotation"].erase("lane_segment");
  expect(frame, "annotation", "missing key `lane_segment`");
}

}  // namespace
}  // namespace olv2
