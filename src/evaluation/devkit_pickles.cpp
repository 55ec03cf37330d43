#include "olv2/evaluation/devkit_pickles.h"

#include <ATen/ATen.h>

#include <cmath>
#include <fstream>
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

FramePrediction prediction_of_frame(const FrameId& frame, const Field& entry) {
  const Field predictions = entry.at("predictions");
  FramePrediction prediction;
  prediction.frame = frame;
  std::set<std::string> ids;
  const auto unique_id = [&](const Field& instance) {
    if (!ids.insert(id_of(instance)).second)
      instance.at("id").fail("ids are not unique in the frame");
  };
  const Field lanes = predictions.at("lane_centerline");
  for (std::size_t i = 0; i < lanes.list().size(); ++i) {
    const Field lane = lanes.element(i);
    unique_id(lane);
    const std::vector<float> points = lane.at("points").matrix(-1, 3, "(n, 3)");
    if (points.empty()) lane.at("points").fail("expected at least one point");
    LanePrediction out;
    for (std::size_t k = 0; k < points.size(); k += 3) {
      out.points.push_back({points[k], points[k + 1], points[k + 2]});
    }
    out.confidence = lane.at("confidence").number();
    prediction.lanes.push_back(std::move(out));
  }
  const Field elements = predictions.at("traffic_element");
  for (std::size_t j = 0; j < elements.list().size(); ++j) {
    const Field element = elements.element(j);
    unique_id(element);
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
  prediction.topology_lclc = predictions.at("topology_lclc")
                                 .matrix(n, n,
                                         "(#lane_centerline, #lane_centerline) = (" +
                                             std::to_string(n) + ", " + std::to_string(n) + ")");
  prediction.topology_lcte = predictions.at("topology_lcte")
                                 .matrix(n, m,
                                         "(#lane_centerline, #traffic_element) = (" +
                                             std::to_string(n) + ", " + std::to_string(m) + ")");
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
  const Field lanes = annotation.at("lane_centerline");
  for (std::size_t i = 0; i < lanes.list().size(); ++i) {
    const std::vector<float> points = lanes.element(i).at("points").matrix(-1, 3, "(n, 3)");
    if (points.size() < 6) lanes.element(i).at("points").fail("expected at least 2 points");
    Polyline lane;
    for (std::size_t k = 0; k < points.size(); k += 3) {
      lane.push_back({points[k], points[k + 1], points[k + 2]});
    }
    gt.lanes.push_back(std::move(lane));
  }
  const Field elements = annotation.at("traffic_element");
  for (std::size_t j = 0; j < elements.list().size(); ++j) {
    const Field element = elements.element(j);
    const std::vector<float> box = element.at("points").matrix(2, 2, "(2, 2)");
    gt.traffic_element_boxes.push_back({box[0], box[1], box[2], box[3]});
    const int64_t attribute = element.at("attribute").integer();
    if (attribute < 0 || attribute >= kTrafficElementClasses) {
      element.at("attribute")
          .fail(std::to_string(attribute) + " is not a traffic element class, expected 0..12");
    }
    gt.traffic_element_attributes.push_back(static_cast<int>(attribute));
  }
  const auto n = static_cast<int64_t>(gt.lanes.size());
  const auto m = static_cast<int64_t>(gt.traffic_element_boxes.size());
  gt.topology_lclc = zero_one_matrix(annotation.at("topology_lclc"), n, n,
                                     "(" + std::to_string(n) + ", " + std::to_string(n) + ")");
  gt.topology_lcte = zero_one_matrix(annotation.at("topology_lcte"), n, m,
                                     "(" + std::to_string(n) + ", " + std::to_string(m) + ")");
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
