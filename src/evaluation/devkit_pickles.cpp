#include "olv2/evaluation/devkit_pickles.h"

#include <ATen/ATen.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include "olv2/data/frame.h"
#include "olv2/evaluation/iso3166.h"
#include "olv2/evaluation/submission_metadata.h"
#include "olv2/util/error.h"
#include "olv2/util/filesystem.h"
#include "olv2/util/pth/pickle_reader.h"

namespace olv2 {

namespace {

constexpr int kMaxDepth = 64;

// A value of the pickle and where it sits, for errors.
class Field {
 public:
  Field(const PthValue& value, std::string where) : value_(value), where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& what) const { throw input_error(where_ + ": " + what); }

  const PthValue& value() const { return value_; }
  Field at(const std::string& key) const {
    if (!value_.is_dict()) fail(std::string("expected a dict, got ") + value_.kind_name());
    const PthValue* found = value_.find(key);
    if (found == nullptr) fail("key `" + key + "` missing");
    return Field(*found, where_ + "." + key);
  }
  bool has(const std::string& key) const { return value_.is_dict() && value_.find(key); }
  const std::vector<PthValue>& list() const {
    if (value_.kind() != PthValue::Kind::kList) {
      fail(std::string("expected a list, got ") + value_.kind_name());
    }
    return value_.items();
  }
  Field element(std::size_t index) const {
    return Field(list().at(index), where_ + "[" + std::to_string(index) + "]");
  }
  std::string text() const {
    if (value_.kind() != PthValue::Kind::kString) {
      fail(std::string("expected a str, got ") + value_.kind_name());
    }
    return value_.as_string();
  }
  int64_t integer() const {
    if (value_.kind() != PthValue::Kind::kInt) {
      fail(std::string("expected an int, got ") + value_.kind_name());
    }
    return value_.as_int();
  }
  float number() const {
    const PthValue::Kind kind = value_.kind();
    if (kind != PthValue::Kind::kFloat && kind != PthValue::Kind::kInt) {
      fail(std::string("expected a number, got ") + value_.kind_name());
    }
    const auto number = static_cast<float>(value_.as_float());
    if (!std::isfinite(number)) fail("not a finite number");
    return number;
  }
  // A numpy array of `rows` x `cols` (-1: any) numbers, as float32 row-major.
  std::vector<float> matrix(int64_t rows, int64_t cols, const std::string& shape) const {
    if (!value_.is_tensor()) {
      fail("expected a numpy array of shape " + shape + ", got " + value_.kind_name());
    }
    const at::Tensor& array = value_.as_tensor();
    if (array.dim() != 2 || (rows >= 0 && array.size(0) != rows) ||
        (cols >= 0 && array.size(1) != cols)) {
      fail("expected a numpy array of shape " + shape + ", got " + shape_of(array));
    }
    if (array.is_complex()) fail("expected real numbers");
    const at::Tensor floats = array.to(at::kFloat).contiguous();
    const float* data = floats.data_ptr<float>();
    std::vector<float> values(data, data + floats.numel());
    for (const float v : values) {
      if (!std::isfinite(v)) fail("holds a non-finite number");
    }
    return values;
  }

 private:
  static std::string shape_of(const at::Tensor& array) {
    std::string shape = "(";
    for (int64_t d = 0; d < array.dim(); ++d) {
      shape += (d ? ", " : "") + std::to_string(array.size(d));
    }
    return shape + (array.dim() == 1 ? ",)" : ")");
  }

  const PthValue& value_;
  std::string where_;
};

// Anything the unpickler did not decode is a call outside the format: refused, named.
void refuse_foreign_objects(const PthValue& value, const std::string& source, int depth) {
  if (depth > kMaxDepth) throw input_error(source + ": nests deeper than the format");
  switch (value.kind()) {
    case PthValue::Kind::kOpaque:
      throw input_error(source + ": the pickle holds " + value.as_opaque().type_name +
                        ", which the format does not (only plain data and numpy arrays)");
    case PthValue::Kind::kList:
    case PthValue::Kind::kTuple:
      for (const PthValue& item : value.items()) refuse_foreign_objects(item, source, depth + 1);
      break;
    case PthValue::Kind::kDict:
      for (const auto& [key, item] : value.dict_items()) {
        refuse_foreign_objects(item, source, depth + 1);
      }
      break;
    default:
      break;
  }
}

PthValue read_pickle(const std::filesystem::path& path, const std::string& what) {
  const std::string bytes = read_file(path);
  const std::string source = what + " " + path.string();
  PthValue value;
  try {
    value = unpickle(bytes, [&](const PthValue&) -> PthValue {
      throw input_error("a persistent id, which a pickle of plain data does not hold");
    });
  } catch (const Error& error) {
    throw input_error(source + ": " + error.what());
  }
  refuse_foreign_objects(value, source, 0);
  if (!value.is_dict()) {
    throw input_error(source + ": expected a dict at the top, got " + value.kind_name());
  }
  return value;
}

FrameId frame_of_key(const PthKey& key, const std::string& source) {
  if (!key.is_tuple() || key.tuple_items().size() != 3) {
    throw input_error(source + ": key " + key.to_string() +
                      ": expected a (split, segment_id, timestamp) tuple of strings");
  }
  const std::vector<std::string>& parts = key.tuple_items();
  return FrameId{parts[0], parts[1], parts[2]};
}

void check_submission_metadata(const Field& top) {
  for (const char* key : {"method", "e-mail", "institution / company", "country / region"}) {
    if (top.has(key)) top.at(key).text();
  }
  if (top.has("country / region")) {
    const std::string country = top.at("country / region").text();
    if (!is_iso3166_country(country)) {
      top.at("country / region").fail("'" + country + "' is not an ISO 3166 country name or code");
    }
  }
  if (top.has("authors")) {
    const Field authors = top.at("authors");
    if (authors.list().size() > kMaxSubmissionAuthors) {
      authors.fail(std::to_string(authors.list().size()) +
                   " names, the leaderboard takes at most " +
                   std::to_string(kMaxSubmissionAuthors));
    }
  }
}

// An instance id: an int or a str, unique within the frame.
std::string id_of(const Field& instance) {
  const Field id = instance.at("id");
  if (id.value().kind() == PthValue::Kind::kInt) return "int " + std::to_string(id.integer());
  if (id.value().kind() == PthValue::Kind::kString) return "str " + id.text();
  id.fail(std::string("expected an int or a str, got ") + id.value().kind_name());
}

Polyline polyline_of(const Field& points, std::size_t min_points) {
  const std::vector<float> values = points.matrix(-1, 3, "(n, 3)");
  if (values.size() < 3 * min_points) {
    points.fail("expected at least " + std::to_string(min_points) + " point(s)");
  }
  Polyline line;
  for (std::size_t k = 0; k < values.size(); k += 3) {
    line.push_back({values[k], values[k + 1], values[k + 2]});
  }
  return line;
}

int index_of(const Field& field, int64_t first, std::size_t count, const std::string& what) {
  const int64_t v = field.integer();
  if (v < first || v >= first + static_cast<int64_t>(count)) {
    field.fail(std::to_string(v) + " is not " + what + ", expected " + std::to_string(first) +
               ".." + std::to_string(first + static_cast<int64_t>(count) - 1));
  }
  return static_cast<int>(v);
}

int line_type_of(const Field& field) {
  return index_of(field, 0, kLaneLineTypeNames.size(), "a line type (0 none, 1 solid, 2 dash)");
}

int area_category_of(const Field& field) {
  return index_of(field, 1, kAreaCategoryNames.size(),
                  "an area category (1 pedestrian crossing, 2 road boundary)");
}

std::string shape(const char* rows, const char* cols, int64_t n, int64_t m) {
  return std::string("(#") + rows + ", #" + cols + ") = (" + std::to_string(n) + ", " +
         std::to_string(m) + ")";
}

// The devkit 1.x checks ids across a frame's objects; the 2.x evaluation checks none, and
// LaneSegNet numbers lane segments and traffic elements alike, so v2.x ids are unique per list.
class FrameIds {
 public:
  explicit FrameIds(bool per_list) : per_list_(per_list) {}
  void add(const Field& instance, const std::string& list) {
    if (!ids_[per_list_ ? list : ""].insert(id_of(instance)).second) {
      instance.at("id").fail("ids are not unique in the frame");
    }
  }

 private:
  bool per_list_;
  std::map<std::string, std::set<std::string>> ids_;
};

FramePrediction prediction_of_frame(const FrameId& frame, const Field& entry) {
  const Field predictions = entry.at("predictions");
  FramePrediction prediction;
  prediction.frame = frame;
  const bool segments = predictions.has("lane_segment");
  if (segments && predictions.has("lane_centerline")) {
    predictions.fail("holds both `lane_centerline` (v1.x) and `lane_segment` (v2.x)");
  }
  FrameIds ids(segments);
  const char* lane_list = segments ? "lane_segment" : "lane_centerline";
  const Field lanes = predictions.at(lane_list);
  for (std::size_t i = 0; i < lanes.list().size(); ++i) {
    const Field lane = lanes.element(i);
    ids.add(lane, lane_list);
    LanePrediction out;
    if (segments) {
      out.points = polyline_of(lane.at("centerline"), 1);
      out.left_laneline = polyline_of(lane.at("left_laneline"), 1);
      out.right_laneline = polyline_of(lane.at("right_laneline"), 1);
      out.left_laneline_type = line_type_of(lane.at("left_laneline_type"));
      out.right_laneline_type = line_type_of(lane.at("right_laneline_type"));
    } else {
      out.points = polyline_of(lane.at("points"), 1);
    }
    out.confidence = lane.at("confidence").number();
    prediction.lanes.push_back(std::move(out));
  }
  if (segments) {
    prediction.format = FrameFormat::kLaneSegment;
    const Field areas = predictions.at("area");
    for (std::size_t k = 0; k < areas.list().size(); ++k) {
      const Field area = areas.element(k);
      ids.add(area, "area");
      AreaPrediction out;
      out.category = area_category_of(area.at("category"));
      out.points = polyline_of(area.at("points"), 1);
      out.confidence = area.at("confidence").number();
      prediction.areas.push_back(std::move(out));
    }
  }
  const Field elements = predictions.at("traffic_element");
  for (std::size_t j = 0; j < elements.list().size(); ++j) {
    const Field element = elements.element(j);
    ids.add(element, "traffic_element");
    const std::vector<float> box = element.at("points").matrix(2, 2, "(2, 2)");
    if (!(box[0] <= box[2] && box[1] <= box[3])) {
      element.at("points").fail("expected [[x1, y1], [x2, y2]] with x1 <= x2 and y1 <= y2");
    }
    TrafficElementPrediction out;
    out.box = {box[0], box[1], box[2], box[3]};
    out.attribute = static_cast<int>(element.at("attribute").integer());
    out.confidence = element.at("confidence").number();
    prediction.traffic_elements.push_back(out);
  }
  const auto n = static_cast<int64_t>(prediction.lanes.size());
  const auto m = static_cast<int64_t>(prediction.traffic_elements.size());
  prediction.topology_lclc = predictions.at(segments ? "topology_lsls" : "topology_lclc")
                                 .matrix(n, n, shape(lane_list, lane_list, n, n));
  prediction.topology_lcte = predictions.at(segments ? "topology_lste" : "topology_lcte")
                                 .matrix(n, m, shape(lane_list, "traffic_element", n, m));
  return prediction;
}

// A ground-truth topology: the devkit's collect turns an empty list into an array of shape
// (0,), which stands for the (0, cols) matrix of a frame without lanes.
std::vector<std::int8_t> zero_one_matrix(const Field& field, int64_t rows, int64_t cols,
                                         const std::string& shape) {
  const PthValue& value = field.value();
  if (rows == 0 && value.is_tensor() && value.as_tensor().dim() == 1 &&
      value.as_tensor().numel() == 0) {
    return {};
  }
  std::vector<std::int8_t> out;
  for (const float v : field.matrix(rows, cols, shape)) {
    if (v != 0.0f && v != 1.0f) field.fail("expected 0 or 1 entries, got " + std::to_string(v));
    out.push_back(static_cast<std::int8_t>(v));
  }
  return out;
}

FrameGroundTruth ground_truth_of_frame(const FrameId& frame, const Field& info) {
  if (!info.has("annotation")) info.fail("no `annotation`; evaluation needs ground truth");
  const Field annotation = info.at("annotation");
  FrameGroundTruth gt;
  gt.frame = frame;
  const bool segments = annotation.has("lane_segment");
  const Field lanes = annotation.at(segments ? "lane_segment" : "lane_centerline");
  for (std::size_t i = 0; i < lanes.list().size(); ++i) {
    const Field lane = lanes.element(i);
    if (!segments) {
      gt.lanes.push_back(polyline_of(lane.at("points"), 2));
      continue;
    }
    gt.lanes.push_back(polyline_of(lane.at("centerline"), 2));
    gt.left_lanelines.push_back(polyline_of(lane.at("left_laneline"), 2));
    gt.right_lanelines.push_back(polyline_of(lane.at("right_laneline"), 2));
  }
  if (segments) {
    gt.format = FrameFormat::kLaneSegment;
    const Field areas = annotation.at("area");
    for (std::size_t k = 0; k < areas.list().size(); ++k) {
      gt.areas.push_back(polyline_of(areas.element(k).at("points"), 2));
      gt.area_categories.push_back(area_category_of(areas.element(k).at("category")));
    }
  }
  const Field elements = annotation.at("traffic_element");
  for (std::size_t j = 0; j < elements.list().size(); ++j) {
    const Field element = elements.element(j);
    const std::vector<float> box = element.at("points").matrix(2, 2, "(2, 2)");
    gt.traffic_element_boxes.push_back({box[0], box[1], box[2], box[3]});
    gt.traffic_element_attributes.push_back(
        index_of(element.at("attribute"), 0, kTrafficElementClasses, "a traffic element class"));
  }
  const auto n = static_cast<int64_t>(gt.lanes.size());
  const auto m = static_cast<int64_t>(gt.traffic_element_boxes.size());
  gt.topology_lclc = zero_one_matrix(annotation.at(segments ? "topology_lsls" : "topology_lclc"), n,
                                     n, "(" + std::to_string(n) + ", " + std::to_string(n) + ")");
  gt.topology_lcte = zero_one_matrix(annotation.at(segments ? "topology_lste" : "topology_lcte"), n,
                                     m, "(" + std::to_string(n) + ", " + std::to_string(m) + ")");
  return gt;
}

}  // namespace

bool is_pickle_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char start[2] = {};
  in.read(start, 2);
  return in.gcount() == 2 && start[0] == '\x80' && start[1] >= 2 && start[1] <= 5;
}

std::vector<FramePrediction> read_submission_file(const std::filesystem::path& path) {
  const std::string source = "submission " + path.string();
  const PthValue root = read_pickle(path, "submission");
  const Field top(root, source);
  check_submission_metadata(top);
  const Field results = top.at("results");
  if (!results.value().is_dict()) {
    results.fail(std::string("expected a dict, got ") + results.value().kind_name());
  }
  std::vector<FramePrediction> predictions;
  for (const auto& [key, value] : results.value().dict_items()) {
    const FrameId frame = frame_of_key(key, source);
    predictions.push_back(
        prediction_of_frame(frame, Field(value, source + ": frame " + frame.key())));
  }
  return predictions;
}

std::vector<FrameGroundTruth> read_ground_truth_file(const std::filesystem::path& path,
                                                     const std::string& split) {
  const std::string source = "ground truth " + path.string();
  const PthValue root = read_pickle(path, "ground truth");
  std::vector<FrameGroundTruth> frames;
  for (const auto& [key, value] : root.dict_items()) {
    const FrameId frame = frame_of_key(key, source);
    if (frame.split != split) continue;
    frames.push_back(ground_truth_of_frame(frame, Field(value, source + ": frame " + frame.key())));
  }
  if (frames.empty()) throw input_error(source + ": no frame of split `" + split + "`");
  return frames;
}

}  // namespace olv2
