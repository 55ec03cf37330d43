#pragma once
// One OpenLane-V2 frame as annotated on disk: subsets and their cameras, poses, lane centerlines
// (v1.x) or lane segments and areas (v2.x), traffic elements and topology.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace olv2 {

// The two subsets of OpenLane-V2, told apart by their cameras.
enum class Subset { kA, kB };

// The cameras of a subset's frames, in file order; camera 0 is the front view. Subset A: the
// 7 Argoverse 2 ring cameras. Subset B: the 6 nuScenes cameras, in the order of TopoNet's
// subset-B dataset (its CAMS).
inline constexpr std::array<const char*, 7> kSubsetACameraNames = {
    "ring_front_center", "ring_front_left", "ring_front_right", "ring_rear_left",
    "ring_rear_right",   "ring_side_left",  "ring_side_right"};
inline constexpr std::array<const char*, 6> kSubsetBCameraNames = {
    "CAM_FRONT", "CAM_FRONT_RIGHT", "CAM_FRONT_LEFT",
    "CAM_BACK",  "CAM_BACK_LEFT",   "CAM_BACK_RIGHT"};

// "A" or "B".
const char* subset_name(Subset subset);
// kSubsetACameraNames or kSubsetBCameraNames.
std::vector<std::string> subset_camera_names(Subset subset);

// What a frame's annotation describes the road as: v1.x lane centerlines (`info/<timestamp>.json`,
// the devkit's `centerline`), or v2.x lane segments with their boundaries, and areas
// (`info/<timestamp>-ls.json`, the devkit's `lanesegment`).
enum class FrameFormat { kLaneCenterline, kLaneSegment };

// A lane segment boundary's line type (`left_laneline_type`, `right_laneline_type`), by index.
inline constexpr std::array<const char*, 3> kLaneLineTypeNames = {"none", "solid", "dash"};
// An area's `category`, from 1: kAreaCategoryNames[category - 1].
inline constexpr std::array<const char*, 2> kAreaCategoryNames = {"pedestrian_crossing",
                                                                  "road_boundary"};
inline constexpr int64_t kPedestrianCrossing = 1;
inline constexpr int64_t kRoadBoundary = 2;

// Traffic element classes (`attribute`), by index (spec/evaluation.md §1.1).
inline constexpr std::array<const char*, 13> kTrafficElementAttributeNames = {
    "unknown",   "red",         "green",        "yellow",        "go_straight",
    "turn_left", "turn_right",  "no_left_turn", "no_right_turn", "u_turn",
    "no_u_turn", "slight_left", "slight_right"};
inline constexpr int64_t kTrafficElementClasses = kTrafficElementAttributeNames.size();

// One camera of a frame, as written in the frame's `sensor` map (file order;
// camera 0 is the front view). Matrices are row-major.
struct CameraInfo {
  std::string name;           // e.g. "ring_front_center" or "CAM_FRONT"
  std::string image_path;     // relative to data_root, as written in the frame JSON
  std::array<double, 9> K{};  // 3x3 pinhole matrix of the original image
  std::array<double, 9> R{};  // 3x3 camera->ego rotation (p_ego = R p_cam + t)
  std::array<double, 3> t{};  // camera position in ego, metres
};

// Ego->global pose of a frame. Row-major rotation.
struct Pose {
  std::array<double, 9> rotation{};
  std::array<double, 3> translation{};
};

// A lane centerline: `points` holds num_points() x 3 floats (x, y, z in ego
// metres), row-major, already subsampled by the reader's point interval.
struct LaneCenterline {
  int64_t id = 0;
  std::vector<float> points;
  int64_t num_points() const { return static_cast<int64_t>(points.size() / 3); }
};

// A lane segment (v2.x): its centerline and left and right boundaries (`*_laneline`), each
// n x 3 float32 (x, y, z in ego metres) row-major, as the collection resamples them
// (FrameReadOptions), and the boundaries' line types.
struct LaneSegment {
  int64_t id = 0;
  std::vector<float> centerline;
  std::vector<float> left_laneline;
  std::vector<float> right_laneline;
  int64_t left_laneline_type = 0;  // kLaneLineTypeNames
  int64_t right_laneline_type = 0;
  bool is_intersection_or_connector = false;
};

// An area (v2.x): a pedestrian crossing or a road boundary, n x 3 float32 points row-major.
struct Area {
  int64_t id = 0;
  int64_t category = kPedestrianCrossing;
  std::vector<float> points;
  int64_t num_points() const { return static_cast<int64_t>(points.size() / 3); }
};

// A traffic element box in pixels of the original (portrait) front image.
struct TrafficElement {
  int64_t id = 0;
  int64_t category = 0;   // 1 traffic light, 2 road sign (unused by the baseline)
  int64_t attribute = 0;  // [0, kTrafficElementClasses): the class the baseline learns
  float x1 = 0, y1 = 0, x2 = 0, y2 = 0;
};

// One OpenLane-V2 frame as read from
// `<data_root>/<split>/<segment>/info/<timestamp>.json`, converted as the
// original preprocessing does (float64 geometry, float32 points, int8
// topology). Plain containers only: evaluation uses it without torch.
struct Frame {
  std::string split;
  std::string segment_id;  // "scene_token" of the original
  std::string timestamp;   // "sample_idx" of the original (string, no ".json")

  Subset subset = Subset::kA;       // which the cameras say
  std::vector<CameraInfo> cameras;  // file order
  Pose pose;

  FrameFormat format = FrameFormat::kLaneCenterline;
  bool has_annotation = false;             // false on test frames
  std::vector<LaneCenterline> lanes;       // v1.x
  std::vector<LaneSegment> lane_segments;  // v2.x
  std::vector<Area> areas;                 // v2.x
  std::vector<TrafficElement> traffic_elements;
  // Row-major int8 0/1 matrices: v1.x [lanes x lanes] (lane i -> lane j) and [lanes x
  // elements]; v2.x the same of the lane segments.
  std::vector<int8_t> topology_lclc;
  std::vector<int8_t> topology_lcte;
  std::vector<int8_t> topology_lsls;
  std::vector<int8_t> topology_lste;

  size_t num_lanes() const { return lanes.size(); }
  size_t num_traffic_elements() const { return traffic_elements.size(); }
  int8_t lclc(size_t i, size_t j) const { return topology_lclc[i * lanes.size() + j]; }
  int8_t lcte(size_t i, size_t k) const { return topology_lcte[i * traffic_elements.size() + k]; }
  int8_t lsls(size_t i, size_t j) const { return topology_lsls[i * lane_segments.size() + j]; }
  int8_t lste(size_t i, size_t k) const { return topology_lste[i * traffic_elements.size() + k]; }
};

}  // namespace olv2
