// Parses one OpenLane-V2 frame JSON (`info/<timestamp>.json`, or `<timestamp>-ls.json` of the
// lane-segment collections) into a Frame, converting as the official preprocessing does and
// checking everything the pipeline, the model and the metrics rely on.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "olv2/data/frame_reader.h"
#include "olv2/data/json_field.h"
#include "olv2/data/polyline_resample.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

using Json = nlohmann::ordered_json;

// Rounding of the files' decimals stays far below it; a matrix that misses by more is not
// orthonormal, and the pipeline takes the transpose of a rotation for its inverse.
constexpr double kRotationTolerance = 1e-3;

std::string camera_list(Subset subset) {
  std::string list;
  for (const std::string& name : subset_camera_names(subset))
    list += (list.empty() ? "" : ", ") + name;
  return list;
}

std::string both_camera_sets() {
  return "the 7 cameras of subset A (" + camera_list(Subset::kA) + ") or the 6 of subset B (" +
         camera_list(Subset::kB) + ")";
}

bool names_a_camera_of(Subset subset, const std::string& name) {
  const std::vector<std::string> names = subset_camera_names(subset);
  return std::find(names.begin(), names.end(), name) != names.end();
}

// `sensor` holds exactly the cameras of one subset, the front view first (duplicates are caught
// by the strict JSON parse). Returns that subset.
Subset check_camera_set(const JsonField& sensor) {
  if (!sensor.json().is_object() || sensor.json().empty()) {
    sensor.fail("expected an object of " + both_camera_sets() + ", got " +
                (sensor.json().is_object() ? std::string("none") : sensor.json().type_name()));
  }
  const std::string first = sensor.json().begin().key();
  const Subset subset = names_a_camera_of(Subset::kB, first) ? Subset::kB : Subset::kA;
  for (const auto& [name, value] : sensor.json().items()) {
    if (!names_a_camera_of(subset, name)) {
      const bool other = names_a_camera_of(subset == Subset::kA ? Subset::kB : Subset::kA, name);
      sensor.at(name).fail(std::string(other ? "a camera of the other subset" : "unknown camera") +
                           ", expected " + both_camera_sets() + ", not a mix");
    }
  }
  for (const std::string& name : subset_camera_names(subset)) {
    if (!sensor.has(name)) {
      sensor.fail("camera `" + name + "` missing, expected the cameras of subset " +
                  subset_name(subset) + ": " + camera_list(subset));
    }
  }
  const std::string front = subset_camera_names(subset).front();
  if (first != front) {
    sensor.fail("the first camera is " + first + ", expected " + front +
                " (camera 0 is the front view)");
  }
  return subset;
}

// Image paths are relative to data_root and must stay inside it.
void check_image_path(const JsonField& field, const std::string& path) {
  if (path.empty()) field.fail("empty image path, expected a path relative to data_root");
  const std::filesystem::path p(path);
  if (p.is_absolute())
    field.fail("image path '" + path + "' is absolute; expected a path relative to data_root");
  int depth = 0;
  for (const auto& part : p.lexically_normal()) {
    if (part == "..")
      --depth;
    else if (part != "." && !part.empty())
      ++depth;
    if (depth < 0) field.fail("image path '" + path + "' escapes data_root");
  }
}

// Orthonormal; the determinant may be -1 (a mirrored camera frame still inverts by transposing).
std::array<double, 9> parse_rotation(const JsonField& field) {
  const auto R = field.matrix<double, 9>(3, 3);
  double error = 0;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      double dot = 0;
      for (int k = 0; k < 3; ++k) dot += R[k * 3 + i] * R[k * 3 + j];
      error = std::max(error, std::abs(dot - (i == j ? 1.0 : 0.0)));
    }
  }
  if (error > kRotationTolerance)
    field.fail("not orthonormal, expected a rotation matrix (R^T R = I)");
  return R;
}

std::array<double, 9> parse_intrinsic(const JsonField& field) {
  const auto K = field.matrix<double, 9>(3, 3);
  if (!(K[0] > 0 && K[4] > 0 && K[3] == 0 && K[6] == 0 && K[7] == 0 && K[8] == 1))
    field.fail("not a pinhole matrix, expected [[fx, s, cx], [0, fy, cy], [0, 0, 1]], fx, fy > 0");
  return K;
}

CameraInfo parse_camera(const JsonField& sensor_entry, const std::string& name) {
  CameraInfo camera;
  camera.name = name;
  const JsonField path_field = sensor_entry.at("image_path");
  camera.image_path = path_field.string();
  check_image_path(path_field, camera.image_path);
  camera.K = parse_intrinsic(sensor_entry.at("intrinsic").at("K"));
  const JsonField extrinsic = sensor_entry.at("extrinsic");
  camera.R = parse_rotation(extrinsic.at("rotation"));
  camera.t = extrinsic.at("translation").matrix<double, 3>(3, 0);
  return camera;
}

LaneCenterline parse_lane(const JsonField& entry, int point_interval) {
  LaneCenterline lane;
  lane.id = entry.at("id").integer();
  const JsonField points = entry.at("points");
  const size_t count = points.list_size();
  if (count < 2)
    points.fail("has " + std::to_string(count) + " points, expected at least 2 (an Nx3 list)");
  lane.points.reserve((count / point_interval + 1) * 3);
  for (size_t i = 0; i < count; i += static_cast<size_t>(point_interval)) {
    const auto xyz = points.element(i).matrix<float, 3>(3, 0);
    lane.points.insert(lane.points.end(), xyz.begin(), xyz.end());
  }
  return lane;
}

TrafficElement parse_traffic_element(const JsonField& entry) {
  TrafficElement element;
  element.id = entry.at("id").integer();
  element.category = entry.at("category").integer();
  const JsonField attribute = entry.at("attribute");
  element.attribute = attribute.integer();
  if (element.attribute < 0 || element.attribute >= kTrafficElementClasses) {
    attribute.fail(std::to_string(element.attribute) + " is not a traffic element class, " +
                   "expected an integer in [0, " + std::to_string(kTrafficElementClasses) + ")");
  }
  const auto box = entry.at("points").matrix<float, 4>(2, 2);
  element.x1 = box[0];
  element.y1 = box[1];
  element.x2 = box[2];
  element.y2 = box[3];
  return element;
}

// Python's int8 conversion takes booleans too.
int8_t topology_entry(const JsonField& field) {
  if (field.json().is_boolean()) return field.json().get<bool>() ? 1 : 0;
  const int64_t v = field.integer();
  if (v != 0 && v != 1) field.fail("expected 0 or 1, got " + std::to_string(v));
  return static_cast<int8_t>(v);
}

// A rows x cols 0/1 matrix; an empty list stands for a matrix with no rows.
std::vector<int8_t> parse_topology(const JsonField& field, size_t rows, size_t cols,
                                   const std::string& what) {
  const size_t n = field.list_size();
  if (n != rows) {
    field.fail("has " + std::to_string(n) + " rows, expected " + std::to_string(rows) + " (" +
               what + ")");
  }
  std::vector<int8_t> out(rows * cols, 0);
  for (size_t r = 0; r < rows; ++r) {
    const JsonField row = field.element(r);
    if (row.list_size() != cols) {
      row.fail("has " + std::to_string(row.json().size()) + " columns, expected " +
               std::to_string(cols) + " (" + what + ")");
    }
    for (size_t c = 0; c < cols; ++c) out[r * cols + c] = topology_entry(row.element(c));
  }
  return out;
}

// The format gives every lane centerline and every traffic element its own id within the frame
// ("unique ID in the current frame"): results files and the topology name objects by it.
template <typename Object>
void require_unique_ids(const JsonField& list, const std::vector<Object>& objects,
                        const std::string& what) {
  std::unordered_map<int64_t, size_t> first_with;
  for (size_t i = 0; i < objects.size(); ++i) {
    const auto [found, inserted] = first_with.emplace(objects[i].id, i);
    if (!inserted) {
      list.element(i).at("id").fail(
          "duplicate id " + std::to_string(objects[i].id) + ", also the id of " + what + "[" +
          std::to_string(found->second) + "]; ids are unique within a frame");
    }
  }
}

// A polyline of at least 2 points [n, 3] read in float64, resampled by length to `count` points
// when given (the collections' `_fix_pts_interpolate`), then stored as float32.
std::vector<float> parse_polyline(const JsonField& points, std::optional<int64_t> count) {
  const size_t n = points.list_size();
  if (n < 2) points.fail("has " + std::to_string(n) + " points, expected at least 2 (an Nx3 list)");
  std::vector<std::array<double, 3>> read;
  read.reserve(n);
  for (size_t i = 0; i < n; ++i) read.push_back(points.element(i).matrix<double, 3>(3, 0));
  if (count) read = resample_by_length(read, *count);
  std::vector<float> out;
  out.reserve(read.size() * 3);
  for (const auto& xyz : read) {
    for (const double v : xyz) out.push_back(static_cast<float>(v));
  }
  return out;
}

int64_t parse_index(const JsonField& field, int64_t first, size_t count, const std::string& what) {
  const int64_t v = field.integer();
  if (v < first || v >= first + static_cast<int64_t>(count)) {
    field.fail(std::to_string(v) + " is not " + what + ", expected an integer in [" +
               std::to_string(first) + ", " + std::to_string(first + static_cast<int64_t>(count)) +
               ")");
  }
  return v;
}

LaneSegment parse_lane_segment(const JsonField& entry, int64_t line_points) {
  LaneSegment segment;
  segment.id = entry.at("id").integer();
  segment.centerline = parse_polyline(entry.at("centerline"), line_points);
  segment.left_laneline = parse_polyline(entry.at("left_laneline"), line_points);
  segment.right_laneline = parse_polyline(entry.at("right_laneline"), line_points);
  segment.left_laneline_type =
      parse_index(entry.at("left_laneline_type"), 0, kLaneLineTypeNames.size(),
                  "a line type (none, solid, dash)");
  segment.right_laneline_type =
      parse_index(entry.at("right_laneline_type"), 0, kLaneLineTypeNames.size(),
                  "a line type (none, solid, dash)");
  if (entry.has("is_intersection_or_connector")) {
    const JsonField flag = entry.at("is_intersection_or_connector");
    if (!flag.json().is_boolean()) flag.fail("expected true or false");
    segment.is_intersection_or_connector = flag.json().get<bool>();
  }
  return segment;
}

Area parse_area(const JsonField& entry, std::optional<int64_t> area_points) {
  Area area;
  area.id = entry.at("id").integer();
  area.category = parse_index(entry.at("category"), 1, kAreaCategoryNames.size(),
                              "an area category (1 pedestrian crossing, 2 road boundary)");
  area.points = parse_polyline(entry.at("points"), area_points);
  return area;
}

struct Topology {
  std::vector<int8_t> lane_lane;
  std::vector<int8_t> lane_element;
};

// The traffic elements into `frame`, then the topology of `lanes` lanes and them: `lanes` is
// "lc" (lane centerlines: topology_lclc, topology_lcte) or "ls" (lane segments: topology_lsls,
// topology_lste), `count` of them, called `what` in messages.
Topology parse_elements_and_topology(const JsonField& annotation, Frame& frame,
                                     const std::string& lanes, size_t count,
                                     const std::string& what) {
  const JsonField elements = annotation.at("traffic_element");
  const size_t k = elements.list_size();
  for (size_t i = 0; i < k; ++i)
    frame.traffic_elements.push_back(parse_traffic_element(elements.element(i)));
  require_unique_ids(elements, frame.traffic_elements, "traffic_element");
  Topology topology;
  topology.lane_lane =
      parse_topology(annotation.at("topology_" + lanes + lanes), count, count, "one per " + what);
  topology.lane_element = parse_topology(annotation.at("topology_" + lanes + "te"), count, k,
                                         what + "s x traffic elements");
  return topology;
}

// The v2.x annotation, resampled as the collection of `kind` does.
void parse_lane_segment_annotation(const JsonField& annotation, Frame& frame, CollectionKind kind) {
  constexpr int64_t kLinePoints = 10;
  constexpr int64_t kAreaPoints = 20;
  const std::optional<int64_t> area_points =
      kind == CollectionKind::kLaneSegment ? std::optional<int64_t>(kAreaPoints) : std::nullopt;
  const JsonField segments = annotation.at("lane_segment");
  const size_t n = segments.list_size();
  for (size_t i = 0; i < n; ++i)
    frame.lane_segments.push_back(parse_lane_segment(segments.element(i), kLinePoints));
  require_unique_ids(segments, frame.lane_segments, "lane_segment");
  const JsonField areas = annotation.at("area");
  for (size_t i = 0; i < areas.list_size(); ++i)
    frame.areas.push_back(parse_area(areas.element(i), area_points));
  require_unique_ids(areas, frame.areas, "area");
  Topology topology = parse_elements_and_topology(annotation, frame, "ls", n, "lane segment");
  frame.topology_lsls = std::move(topology.lane_lane);
  frame.topology_lste = std::move(topology.lane_element);
}

void parse_centerline_annotation(const JsonField& annotation, Frame& frame, int point_interval) {
  const JsonField lanes = annotation.at("lane_centerline");
  const size_t n = lanes.list_size();
  for (size_t i = 0; i < n; ++i) {
    frame.lanes.push_back(parse_lane(lanes.element(i), point_interval));
    // The original stacks all centerlines into one array.
    if (frame.lanes.back().num_points() != frame.lanes.front().num_points()) {
      const JsonField points = lanes.element(i).at("points");
      points.fail("has " + std::to_string(points.json().size()) + " points, expected " +
                  std::to_string(lanes.element(0).at("points").json().size()) +
                  " as the first centerline of the frame");
    }
  }
  require_unique_ids(lanes, frame.lanes, "lane_centerline");
  Topology topology = parse_elements_and_topology(annotation, frame, "lc", n, "lane centerline");
  frame.topology_lclc = std::move(topology.lane_lane);
  frame.topology_lcte = std::move(topology.lane_element);
}

}  // namespace

Frame parse_frame(const std::string& json_text, const std::string& source, const FrameKey& key,
                  const FrameReadOptions& options) {
  const std::string what = "frame " + source;
  if (options.point_interval < 1) {
    throw input_error(what + ": point interval must be >= 1, got " +
                      std::to_string(options.point_interval));
  }
  const Json root = parse_strict_json(json_text, what);
  const JsonField top(root, "", what);
  if (!root.is_object()) top.fail("expected a JSON object at the top level");

  Frame frame;
  frame.format = frame_format(options.kind);
  frame.split = key.split;
  frame.segment_id = key.segment_id;
  frame.timestamp = key.timestamp;

  const JsonField sensor = top.at("sensor");
  frame.subset = check_camera_set(sensor);
  if (options.subset && *options.subset != frame.subset) {
    sensor.fail(std::string("the cameras of subset ") + subset_name(frame.subset) +
                ", but the dataset is of subset " + subset_name(*options.subset) + " (its `type`)");
  }
  for (const auto& [name, value] : sensor.json().items())
    frame.cameras.push_back(parse_camera(sensor.at(name), name));
  const JsonField pose = top.at("pose");
  frame.pose.rotation = parse_rotation(pose.at("rotation"));
  frame.pose.translation = pose.at("translation").matrix<double, 3>(3, 0);

  if (top.has("annotation") && !root["annotation"].is_null()) {
    frame.has_annotation = true;
    if (frame.format == FrameFormat::kLaneSegment) {
      parse_lane_segment_annotation(top.at("annotation"), frame, options.kind);
    } else {
      parse_centerline_annotation(top.at("annotation"), frame, options.point_interval);
    }
  }
  return frame;
}

}  // namespace olv2
