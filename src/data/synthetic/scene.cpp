#include "olv2/data/synthetic/scene.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "olv2/data/synthetic/decimal_rounding.h"
#include "olv2/util/math_constants.h"

namespace olv2::synthetic {

namespace {

constexpr double kFrameInterval = 0.5;      // seconds between OpenLane-V2 frames
constexpr double kLaneStartBehind = -45.0;  // centerlines start this far behind the ego
constexpr double kLaneEndAhead = 50.0;      // and end at most this far ahead
constexpr double kSuccessorLength = 35.0;
constexpr double kLightHeight = 5.0;
constexpr double kLightWidth = 1.2;
constexpr double kLightTall = 3.0;
constexpr double kSignHeight = 2.8;
constexpr double kSignSize = 2.4;
constexpr double kMinBoxPixels = 2.0;
constexpr double kCrossingFromStopLine = 1.0;  // the crossing's near edge past the stop line
constexpr double kCrossingDepth = 3.0;

// Road coordinates: X along the road from the ego, Y left of the ego's lane
// centre. The ego stands at (0, lateral_offset) looking `yaw` off the road
// direction; the road bends with `curvature` and climbs with `slope`.
struct RoadToEgo {
  double lateral_offset = 0;
  double yaw = 0;
  double curvature = 0;
  double slope = 0;

  cv::Vec3d operator()(double x, double y, double height = 0.0) const {
    const double bent_y = y + 0.5 * curvature * x * x - lateral_offset;
    const double c = std::cos(yaw);
    const double s = std::sin(yaw);
    return {c * x + s * bent_y, -s * x + c * bent_y, slope * x + height};
  }
};

// `count` points of `curve(s)` for s in [0, 1], rounded to 10 micrometres as the real files are.
std::vector<cv::Vec3d> sample_curve(const std::function<cv::Vec3d(double)>& curve,
                                    int count = kCenterlinePoints) {
  std::vector<cv::Vec3d> points;
  points.reserve(count);
  for (int i = 0; i < count; ++i) {
    const cv::Vec3d point = curve(static_cast<double>(i) / (count - 1));
    points.emplace_back(round_to(point[0], 5), round_to(point[1], 5), round_to(point[2], 5));
  }
  return points;
}

std::vector<cv::Vec3d> straight_lane(const RoadToEgo& road, double y, double x_from, double x_to,
                                     int count = kCenterlinePoints) {
  return sample_curve([&](double s) { return road(x_from + s * (x_to - x_from), y); }, count);
}

// A quarter circle leaving (x, y) along the road and turning left (side +1) or
// right (-1).
std::vector<cv::Vec3d> turn_lane(const RoadToEgo& road, double x, double y, int side, double radius,
                                 int count = kCenterlinePoints) {
  return sample_curve(
      [&](double s) {
        const double angle = s * kPi / 2;
        return road(x + radius * std::sin(angle), y + side * radius * (1 - std::cos(angle)));
      },
      count);
}

// One lane of a straight stretch as a lane segment: its centerline at `y`, its boundaries half a
// lane either side.
SyntheticLaneSegment straight_segment(const RoadToEgo& road, int64_t id, double y, double width,
                                      double x_from, double x_to) {
  SyntheticLaneSegment segment;
  segment.id = id;
  segment.centerline = straight_lane(road, y, x_from, x_to, kLaneSegmentLinePoints);
  segment.left_laneline = straight_lane(road, y + width / 2, x_from, x_to, kLaneSegmentLinePoints);
  segment.right_laneline = straight_lane(road, y - width / 2, x_from, x_to, kLaneSegmentLinePoints);
  return segment;
}

// The turn lane as a lane segment: the boundaries are the arcs of the same centre, half a lane
// nearer to it and farther from it.
SyntheticLaneSegment turn_segment(const RoadToEgo& road, int64_t id, double x, double y, int side,
                                  double radius, double width) {
  SyntheticLaneSegment segment;
  segment.id = id;
  segment.centerline = turn_lane(road, x, y, side, radius, kLaneSegmentLinePoints);
  segment.left_laneline =
      turn_lane(road, x, y + width / 2, side, radius - side * width / 2, kLaneSegmentLinePoints);
  segment.right_laneline =
      turn_lane(road, x, y - width / 2, side, radius + side * width / 2, kLaneSegmentLinePoints);
  return segment;
}

// The pixel box of an upright rectangle facing the ego (centre in ego
// coordinates), or false when any corner is behind the camera or the box leaves
// the image.
bool front_box(const cv::Matx44d& projection, const SyntheticCamera& camera,
               const cv::Vec3d& centre, double width, double height,
               SyntheticTrafficElement& element) {
  double x1 = 1e30, y1 = 1e30, x2 = -1e30, y2 = -1e30;
  for (double dy : {-0.5, 0.5}) {
    for (double dz : {-0.5, 0.5}) {
      const auto corner = project(projection, centre + cv::Vec3d(0, dy * width, dz * height),
                                  /*min_depth=*/1.0);
      if (!corner) {
        return false;
      }
      x1 = std::min(x1, corner->pixel.x);
      x2 = std::max(x2, corner->pixel.x);
      y1 = std::min(y1, corner->pixel.y);
      y2 = std::max(y2, corner->pixel.y);
    }
  }
  if (x1 < 0 || y1 < 0 || x2 > camera.width - 1 || y2 > camera.height - 1 ||
      y2 - y1 < kMinBoxPixels || x2 - x1 < kMinBoxPixels) {
    return false;
  }
  element.x1 = round_to(x1, 2);
  element.y1 = round_to(y1, 2);
  element.x2 = round_to(x2, 2);
  element.y2 = round_to(y2, 2);
  return true;
}

cv::Matx33d rotation_z(double angle) {
  const double c = std::cos(angle);
  const double s = std::sin(angle);
  return {c, -s, 0, s, c, 0, 0, 0, 1};
}

}  // namespace

SegmentLayout draw_segment_layout(SceneRng& rng) {
  SegmentLayout layout;
  layout.num_lanes = static_cast<int>(rng.integer(2, 4));
  layout.lane_width = rng.uniform(3.2, 3.8);
  layout.ego_lane = static_cast<int>(rng.integer(0, layout.num_lanes - 1));
  layout.stop_line_start = rng.uniform(32.0, 38.0);
  layout.speed = rng.uniform(3.0, 6.0);
  layout.curvature = rng.uniform(-0.002, 0.002);
  layout.slope = rng.uniform(-0.01, 0.01);
  layout.light_attribute = static_cast<int>(rng.integer(kRed, kYellow));
  const int signs[] = {0, kGoStraight, kTurnLeft, kTurnRight};
  layout.sign_attribute = signs[rng.integer(0, 3)];
  layout.heading = rng.uniform(-kPi, kPi);
  layout.origin = cv::Vec3d(rng.uniform(0, 8000), rng.uniform(0, 8000), rng.uniform(-5, 20));
  return layout;
}

SyntheticScene make_scene(const SegmentLayout& layout, int frame_in_segment,
                          const SyntheticCamera& front_camera, SceneRng& rng) {
  const double travelled = layout.speed * kFrameInterval * frame_in_segment;
  const double stop_x = layout.stop_line_start - travelled;
  RoadToEgo road;
  road.lateral_offset = rng.uniform(-0.4, 0.4);
  road.yaw = rng.uniform(-1.0, 1.0) * kPi / 180.0;
  road.curvature = layout.curvature;
  road.slope = layout.slope;

  SyntheticScene scene;
  int64_t next_lane_id = 1000;
  auto lane_y = [&](int lane) { return (lane - layout.ego_lane) * layout.lane_width; };
  // Approaching lanes first (index = lane number), then their successors, then
  // a connector.
  const int n = layout.num_lanes;
  for (int lane = 0; lane < n; ++lane) {
    scene.lanes.push_back(
        {next_lane_id++, straight_lane(road, lane_y(lane), kLaneStartBehind, stop_x), false});
  }
  const double successor_end = std::min(stop_x + kSuccessorLength, kLaneEndAhead);
  for (int lane = 0; lane < n; ++lane) {
    scene.lanes.push_back(
        {next_lane_id++, straight_lane(road, lane_y(lane), stop_x, successor_end), true});
  }
  int turning_lane = -1;
  if (layout.sign_attribute == kTurnLeft || layout.sign_attribute == kTurnRight) {
    const bool left = layout.sign_attribute == kTurnLeft;
    turning_lane = left ? n - 1 : 0;
    scene.lanes.push_back(
        {next_lane_id++,
         turn_lane(road, stop_x, lane_y(turning_lane), left ? 1 : -1, left ? 12.0 : 8.0), true});
  }
  // The same lanes as lane segments: painted boundaries along the approach (dashed between lanes,
  // solid at the road's edges), none across the junction.
  for (int lane = 0; lane < n; ++lane) {
    SyntheticLaneSegment segment = straight_segment(road, scene.lanes[lane].id, lane_y(lane),
                                                    layout.lane_width, kLaneStartBehind, stop_x);
    segment.right_laneline_type = lane == 0 ? kSolidLine : kDashedLine;
    segment.left_laneline_type = lane == n - 1 ? kSolidLine : kDashedLine;
    scene.lane_segments.push_back(std::move(segment));
  }
  for (int lane = 0; lane < n; ++lane) {
    scene.lane_segments.push_back(straight_segment(road, scene.lanes[n + lane].id, lane_y(lane),
                                                   layout.lane_width, stop_x, successor_end));
  }
  if (turning_lane >= 0) {
    const bool left = layout.sign_attribute == kTurnLeft;
    scene.lane_segments.push_back(turn_segment(road, scene.lanes.back().id, stop_x,
                                               lane_y(turning_lane), left ? 1 : -1,
                                               left ? 12.0 : 8.0, layout.lane_width));
  }
  for (size_t i = static_cast<size_t>(n); i < scene.lane_segments.size(); ++i) {
    scene.lane_segments[i].is_intersection_or_connector = true;
  }

  const size_t num_lanes = scene.lanes.size();
  scene.topology_lclc.assign(num_lanes, std::vector<int>(num_lanes, 0));
  for (int lane = 0; lane < n; ++lane) {
    scene.topology_lclc[lane][n + lane] = 1;
  }
  if (turning_lane >= 0) {
    scene.topology_lclc[turning_lane][num_lanes - 1] = 1;
  }

  // Lights just past the stop line above each approaching lane; the sign before
  // it, right of the road. Each element governs the approaching lanes its
  // attribute speaks of.
  const cv::Matx44d projection = lidar2img(front_camera);
  std::vector<std::vector<int>> governed;
  int64_t next_element_id = 2000;
  for (int lane = 0; lane < n; ++lane) {
    SyntheticTrafficElement light{next_element_id++, 1, layout.light_attribute};
    if (front_box(projection, front_camera, road(stop_x + 2.0, lane_y(lane), kLightHeight),
                  kLightWidth, kLightTall, light)) {
      scene.traffic_elements.push_back(light);
      governed.push_back({lane});
    }
  }
  if (layout.sign_attribute != 0) {
    SyntheticTrafficElement sign{next_element_id++, 2, layout.sign_attribute};
    const double sign_y = lane_y(0) - layout.lane_width / 2 - 1.5;
    if (front_box(projection, front_camera, road(stop_x - 3.0, sign_y, kSignHeight), kSignSize,
                  kSignSize, sign)) {
      scene.traffic_elements.push_back(sign);
      std::vector<int> lanes;
      for (int lane = 0; lane < n; ++lane) {
        if (layout.sign_attribute == kGoStraight || lane == turning_lane) {
          lanes.push_back(lane);
        }
      }
      governed.push_back(lanes);
    }
  }
  scene.topology_lcte.assign(num_lanes, std::vector<int>(scene.traffic_elements.size(), 0));
  for (size_t element = 0; element < governed.size(); ++element) {
    for (int lane : governed[element]) {
      scene.topology_lcte[lane][element] = 1;
    }
  }

  for (int boundary = 0; boundary <= n; ++boundary) {
    const double y = lane_y(boundary) - layout.lane_width / 2;
    scene.markings.push_back(straight_lane(road, y, kLaneStartBehind, stop_x));
  }
  const double right_edge = lane_y(0) - layout.lane_width / 2;
  const double road_width = n * layout.lane_width;
  scene.markings.push_back(
      sample_curve([&](double s) { return road(stop_x, right_edge + s * road_width); }));

  // A pedestrian crossing just past the stop line, across the road: its outline from the near
  // right corner leftwards, then back along the far edge; the road's edges along the approach.
  const double near_x = stop_x + kCrossingFromStopLine;
  const double far_x = near_x + kCrossingDepth;
  const double left_edge = right_edge + road_width;
  const auto corner = [&](double x, double y) {
    const cv::Vec3d point = road(x, y);
    return cv::Vec3d(round_to(point[0], 5), round_to(point[1], 5), round_to(point[2], 5));
  };
  int64_t next_area_id = 3000;
  scene.areas.push_back(
      {next_area_id++,
       kPedestrianCrossing,
       {corner(near_x, right_edge), corner(near_x, left_edge), corner(far_x, left_edge),
        corner(far_x, right_edge), corner(near_x, right_edge)}});
  for (const double y : {right_edge, left_edge}) {
    scene.areas.push_back(
        {next_area_id++, kRoadBoundary,
         straight_lane(road, y, kLaneStartBehind, stop_x, kLaneSegmentLinePoints)});
  }
  const auto across = [&](double x) {
    return sample_curve([&](double s) { return road(x, right_edge + s * road_width); },
                        kLaneSegmentLinePoints);
  };
  scene.area_markings = {across(near_x), across(far_x),
                         straight_lane(road, right_edge, near_x, far_x, kLaneSegmentLinePoints),
                         straight_lane(road, left_edge, near_x, far_x, kLaneSegmentLinePoints)};

  const double heading = layout.heading + road.yaw;
  scene.pose_rotation = rotation_z(heading);
  const cv::Matx33d road_rotation = rotation_z(layout.heading);
  scene.pose_translation =
      layout.origin + road_rotation * cv::Vec3d(travelled, road.lateral_offset, 0.0);
  for (int axis = 0; axis < 3; ++axis) {
    scene.pose_translation[axis] = round_to(scene.pose_translation[axis], 3);
  }
  return scene;
}

}  // namespace olv2::synthetic
