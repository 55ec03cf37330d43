#pragma once
// The synthetic road scenes: a segment's road layout and each frame's lanes (as centerlines and as
// lane segments with their boundaries), areas, traffic elements and topology.
#include <cstdint>
#include <opencv2/core/matx.hpp>
#include <vector>

#include "olv2/data/frame.h"
#include "olv2/data/synthetic/camera_rig.h"
#include "olv2/data/synthetic/scene_rng.h"

namespace olv2::synthetic {

// Real centerlines hold 201 points each.
constexpr int kCenterlinePoints = 201;
// The lines of lane segments and areas, which the collections resample.
constexpr int kLaneSegmentLinePoints = 21;

// Traffic-element attributes the scenes use (spec §1.2 numbering).
enum TrafficAttribute : int {
  kRed = 1,
  kGreen = 2,
  kYellow = 3,
  kGoStraight = 4,
  kTurnLeft = 5,
  kTurnRight = 6,
};

// The road of one segment (a short drive towards a signalled stop line). Frames
// of a segment share it; the ego advances between frames.
struct SegmentLayout {
  int num_lanes = 3;        // lanes of the ego's direction, numbered right to left
  double lane_width = 3.5;  // metres
  int ego_lane = 1;
  double stop_line_start = 40;  // stop-line distance ahead of the ego in the first frame
  double speed = 6;             // metres per second; frames are 0.5 s apart
  double curvature = 0;         // 1/metres, bends the whole road
  double slope = 0;             // road height gain per metre
  int light_attribute = kRed;   // one light above every lane, all in this state
  int sign_attribute = 0;       // 0: no sign; kGoStraight, kTurnLeft or kTurnRight
  double heading = 0;           // global heading of the road, radians
  cv::Vec3d origin;             // global position of the ego in the first frame
};

// A centerline in ego coordinates (metres), ordered along the driving
// direction.
struct SyntheticLane {
  int64_t id = 0;
  std::vector<cv::Vec3d> points;  // kCenterlinePoints, rounded as written
  bool is_connector = false;
};

// A traffic element with its box in front-image pixels (rounded as written).
struct SyntheticTrafficElement {
  int64_t id = 0;
  int category = 1;  // 1 traffic light, 2 road sign
  int attribute = 0;
  double x1 = 0, y1 = 0, x2 = 0, y2 = 0;
};

// Everything one frame shows: the annotation plus what is only rendered (lane
// markings).
// A lane segment boundary's line type (kLaneLineTypeNames numbering).
enum LaneLineType : int { kNoLine = 0, kSolidLine = 1, kDashedLine = 2 };

// A lane as a lane segment (v2.x): `lanes[i]` with its boundaries, of kLaneSegmentLinePoints.
struct SyntheticLaneSegment {
  int64_t id = 0;
  std::vector<cv::Vec3d> centerline;
  std::vector<cv::Vec3d> left_laneline;
  std::vector<cv::Vec3d> right_laneline;
  int left_laneline_type = kNoLine;
  int right_laneline_type = kNoLine;
  bool is_intersection_or_connector = false;
};

// A pedestrian crossing (its outline, 5 points closing on the first) or a road boundary (a
// line); categories as frame.h numbers them.
struct SyntheticArea {
  int64_t id = 0;
  int64_t category = kPedestrianCrossing;
  std::vector<cv::Vec3d> points;
};

struct SyntheticScene {
  std::vector<SyntheticLane> lanes;
  // The same lanes as lane segments (topology_lclc and topology_lcte are theirs too), and the
  // areas, of the lane-segment frames.
  std::vector<SyntheticLaneSegment> lane_segments;
  std::vector<SyntheticArea> areas;
  // What the images of lane-segment frames show besides `markings`: the crossing's outline.
  std::vector<std::vector<cv::Vec3d>> area_markings;
  std::vector<SyntheticTrafficElement> traffic_elements;
  std::vector<std::vector<int>> topology_lclc;   // [lanes][lanes]: lane i continues into lane j
  std::vector<std::vector<int>> topology_lcte;   // [lanes][elements]: element j governs lane i
  std::vector<std::vector<cv::Vec3d>> markings;  // lane boundaries and stop line, ego coordinates
  cv::Matx33d pose_rotation;                     // ego->global
  cv::Vec3d pose_translation;
};

SegmentLayout draw_segment_layout(SceneRng& rng);

// Frame `frame_in_segment` of a segment: lanes before and after the stop line
// (successors), a turn connector when the sign says so, one light per
// approaching lane and the sign, with boxes projected into `front_camera`.
// Elements outside the front image are left out. `rng` adds the frame's small
// ego offset and yaw within its lane.
SyntheticScene make_scene(const SegmentLayout& layout, int frame_in_segment,
                          const SyntheticCamera& front_camera, SceneRng& rng);

}  // namespace olv2::synthetic
