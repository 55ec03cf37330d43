// Parses one OpenLane-V2 frame JSON (`info/<timestamp>.json`) into a Frame,
// converting as the official preprocessing does and checking every field the
// pipeline relies on.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "olv2/data/frame_reader.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

using Json = nlohmann::ordered_json;

// A JSON value together with its key path, so that every error names the file
// and the key.
class Field {
 public:
  Field(const Json& value, std::string path, const std::string& source)
      : value_(value), path_(std::move(path)), source_(source) {}

  const Json& json() const { return value_; }

  [[noreturn]] void fail(const std::string& what) const {
    throw input_error("frame " + source_ + ": key `" + path_ + "`: " + what);
  }

  Field at(const std::string& key) const {
    if (!value_.is_object()) fail("expected an object, got " + type_name());
    auto it = value_.find(key);
    if (it == value_.end()) fail("missing key `" + key + "`");
    return Field(*it, join(key), source_);
  }
  bool has(const std::string& key) const { return value_.is_object() && value_.contains(key); }

  Field element(size_t i) const {
    return Field(value_[i], path_ + "[" + std::to_string(i) + "]", source_);
  }
  size_t list_size() const {
    if (!value_.is_array()) fail("expected a list, got " + type_name());
    return value_.size();
  }

  double number() const {
    if (!value_.is_number()) fail("expected a number, got " + type_name());
    const double v = value_.get<double>();
    if (!std::isfinite(v)) fail("non-finite number");
    return v;
  }
  int64_t integer() const {
    if (value_.is_boolean()) return value_.get<bool>() ? 1 : 0;
    if (!value_.is_number_integer()) fail("expected an integer, got " + type_name());
    return value_.get<int64_t>();
  }
  std::string string() const {
    if (!value_.is_string()) fail("expected a string, got " + type_name());
    return value_.get<std::string>();
  }

  // A rows x cols matrix of finite numbers, row-major.
  template <typename T, size_t N>
  std::array<T, N> matrix(size_t rows, size_t cols) const {
    std::array<T, N> out{};
    if (list_size() != rows) fail(shape_error(rows, cols));
    for (size_t r = 0; r < rows; ++r) {
      const Field row = element(r);
      if (cols == 0) {
        out[r] = static_cast<T>(row.number());
        continue;
      }
      if (!row.json().is_array() || row.json().size() != cols) fail(shape_error(rows, cols));
      for (size_t c = 0; c < cols; ++c) out[r * cols + c] = static_cast<T>(row.element(c).number());
    }
    return out;
  }

 private:
  std::string join(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  std::string type_name() const { return value_.type_name(); }
  static std::string shape_error(size_t rows, size_t cols) {
    std::ostringstream message;
    message << "expected "
            << (cols == 0 ? "a list of " + std::to_string(rows) + " numbers"
                          : "a " + std::to_string(rows) + "x" + std::to_string(cols) +
                                " matrix of numbers");
    return message.str();
  }

  const Json& value_;
  std::string path_;
  const std::string& source_;
};

// Image paths are relative to data_root and must stay inside it.
void check_image_path(const Field& field, const std::string& path) {
  if (path.empty()) field.fail("empty image path");
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

CameraInfo parse_camera(const Field& sensor_entry, const std::string& name) {
  CameraInfo camera;
  camera.name = name;
  const Field path_field = sensor_entry.at("image_path");
  camera.image_path = path_field.string();
  check_image_path(path_field, camera.image_path);
  camera.K = sensor_entry.at("intrinsic").at("K").matrix<double, 9>(3, 3);
  const Field extrinsic = sensor_entry.at("extrinsic");
  camera.R = extrinsic.at("rotation").matrix<double, 9>(3, 3);
  camera.t = extrinsic.at("translation").matrix<double, 3>(3, 0);
  return camera;
}

LaneCenterline parse_lane(const Field& entry, int point_interval) {
  LaneCenterline lane;
  lane.id = entry.at("id").integer();
  const Field points = entry.at("points");
  const size_t count = points.list_size();
  if (count < 2) points.fail("expected at least 2 points, got " + std::to_string(count));
  lane.points.reserve((count / point_interval + 1) * 3);
  for (size_t i = 0; i < count; i += static_cast<size_t>(point_interval)) {
    const auto xyz = points.element(i).matrix<float, 3>(3, 0);
    lane.points.insert(lane.points.end(), xyz.begin(), xyz.end());
  }
  return lane;
}

TrafficElement parse_traffic_element(const Field& entry) {
  TrafficElement element;
  element.id = entry.at("id").integer();
  element.category = entry.at("category").integer();
  element.attribute = entry.at("attribute").integer();
  const auto box = entry.at("points").matrix<float, 4>(2, 2);
  element.x1 = box[0];
  element.y1 = box[1];
  element.x2 = box[2];
  element.y2 = box[3];
  return element;
}

// A rows x cols 0/1 matrix; an empty list stands for a matrix with no rows.
std::vector<int8_t> parse_topology(const Field& field, size_t rows, size_t cols,
                                   const std::string& what) {
  const size_t n = field.list_size();
  if (n != rows) {
    field.fail("has " + std::to_string(n) + " rows, expected " + std::to_string(rows) + " (" +
               what + ")");
  }
  std::vector<int8_t> out(rows * cols, 0);
  for (size_t r = 0; r < rows; ++r) {
    const Field row = field.element(r);
    if (row.list_size() != cols) {
      row.fail("has " + std::to_string(row.json().size()) + " columns, expected " +
               std::to_string(cols) + " (" + what + ")");
    }
    for (size_t c = 0; c < cols; ++c) {
      const int64_t v = row.element(c).integer();
      if (v != 0 && v != 1) row.element(c).fail("expected 0 or 1, got " + std::to_string(v));
      out[r * cols + c] = static_cast<int8_t>(v);
    }
  }
  return out;
}

void parse_annotation(const Field& annotation, Frame& frame, int point_interval) {
  const Field lanes = annotation.at("lane_centerline");
  const size_t n = lanes.list_size();
  for (size_t i = 0; i < n; ++i) {
    frame.lanes.push_back(parse_lane(lanes.element(i), point_interval));
    // The original stacks all centerlines into one array.
    if (frame.lanes.back().num_points() != frame.lanes.front().num_points()) {
      lanes.element(i).at("points").fail(
          "has " + std::to_string(lanes.element(i).at("points").json().size()) +
          " points, but the first centerline of the frame has a different "
          "count");
    }
  }
  const Field elements = annotation.at("traffic_element");
  const size_t k = elements.list_size();
  for (size_t i = 0; i < k; ++i)
    frame.traffic_elements.push_back(parse_traffic_element(elements.element(i)));
  frame.topology_lclc =
      parse_topology(annotation.at("topology_lclc"), n, n, "one per lane centerline");
  frame.topology_lcte =
      parse_topology(annotation.at("topology_lcte"), n, k, "lane centerlines x traffic elements");
}

// Python's json writes NaN / Infinity literals, which JSON (and the parser) rejects: say so.
std::string describe_parse_error(const std::string& text, const nlohmann::json::exception& e) {
  if (const auto* parse = dynamic_cast<const nlohmann::json::parse_error*>(&e)) {
    const size_t end = std::min(text.size(), parse->byte + 16);
    const size_t begin = parse->byte > 16 ? parse->byte - 16 : 0;
    const std::string around = text.substr(begin, end - begin);
    if (around.find("NaN") != std::string::npos || around.find("Infinity") != std::string::npos) {
      return "non-finite number (NaN/Infinity) near byte " + std::to_string(parse->byte);
    }
  }
  return std::string("malformed JSON: ") + e.what();
}

}  // namespace

Frame parse_frame(const std::string& json_text, const std::string& source, const FrameKey& key,
                  const FrameReadOptions& options) {
  if (options.point_interval < 1) {
    throw input_error("frame " + source + ": point interval must be >= 1, got " +
                      std::to_string(options.point_interval));
  }
  Json root;
  try {
    root = Json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    throw input_error("frame " + source + ": " + describe_parse_error(json_text, e));
  }
  const Field top(root, "", source);
  if (!root.is_object()) top.fail("expected a JSON object at the top level");

  Frame frame;
  frame.split = key.split;
  frame.segment_id = key.segment_id;
  frame.timestamp = key.timestamp;

  const Field sensor = top.at("sensor");
  if (!sensor.json().is_object() || sensor.json().empty())
    sensor.fail("expected a non-empty object of cameras");
  for (const auto& [name, value] : sensor.json().items()) {
    frame.cameras.push_back(parse_camera(Field(value, "sensor." + name, source), name));
  }
  const Field pose = top.at("pose");
  frame.pose.rotation = pose.at("rotation").matrix<double, 9>(3, 3);
  frame.pose.translation = pose.at("translation").matrix<double, 3>(3, 0);

  if (top.has("annotation") && !root["annotation"].is_null()) {
    frame.has_annotation = true;
    parse_annotation(top.at("annotation"), frame, options.point_interval);
  }
  return frame;
}

}  // namespace olv2
