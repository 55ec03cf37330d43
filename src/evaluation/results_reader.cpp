#include "olv2/evaluation/results_reader.h"

#include <array>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "olv2/evaluation/iso3166.h"
#include "olv2/util/error.h"
#include "olv2/util/filesystem.h"

namespace olv2 {
namespace {

using Json = nlohmann::json;

// Builds one JSON value from SAX events. The results file can hold hundreds of megabytes, so the
// reader keeps only one frame's value as a DOM at a time.
class ValueBuilder {
 public:
  bool active() const { return active_; }
  void begin() {
    active_ = true;
    root_ = Json();
    stack_.clear();
  }
  // Returns true when the value is complete.
  template <typename Value>
  bool scalar(Value&& value) {
    place(Json(std::forward<Value>(value)));
    return stack_.empty();
  }
  void start(Json container) { stack_.push_back(place(std::move(container))); }
  bool end() {
    stack_.pop_back();
    return stack_.empty();
  }
  // Returns false when the key repeats within its object.
  bool key(const std::string& name) {
    Json& object = *stack_.back();
    if (object.contains(name)) return false;
    member_ = &object[name];
    return true;
  }
  Json take() {
    active_ = false;
    return std::move(root_);
  }

 private:
  Json* place(Json value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Json& parent = *stack_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return &parent.back();
    }
    *member_ = std::move(value);
    return member_;
  }

  bool active_ = false;
  Json root_;
  std::vector<Json*> stack_;
  Json* member_ = nullptr;
};

FrameId parse_frame_key(const std::string& key, const std::string& source) {
  FrameId frame;
  std::string* parts[] = {&frame.split, &frame.segment_id, &frame.timestamp};
  std::size_t start = 0;
  for (std::size_t p = 0; p < 3; ++p) {
    const std::size_t slash = key.find('/', start);
    const bool last = p == 2;
    if ((slash == std::string::npos) != last) {
      throw input_error("results " + source + ": key `" + key +
                        "`: expected \"<split>/<segment_id>/<timestamp>\"");
    }
    *parts[p] = key.substr(start, last ? std::string::npos : slash - start);
    if (parts[p]->empty()) {
      throw input_error("results " + source + ": key `" + key + "`: empty part");
    }
    start = slash + 1;
  }
  return frame;
}

// Strict typed access to one frame's JSON, with errors naming the frame and the member.
class FrameParser {
 public:
  FrameParser(const std::string& source, const std::string& key)
      : where_("results " + source + ": frame " + key) {}

  FramePrediction parse(const Json& value, FrameId frame) {
    FramePrediction prediction;
    prediction.frame = std::move(frame);
    const Json& predictions = member(value, "predictions", "");
    if (!predictions.is_object()) fail("predictions", "expected an object");
    const bool centerlines = predictions.contains("lane_centerline");
    const bool segments = predictions.contains("lane_segment");
    if (centerlines == segments) {
      fail("predictions", centerlines
                              ? "holds both `lane_centerline` (v1.x) and `lane_segment` "
                                "(v2.x); a frame predicts one task"
                              : "missing `lane_centerline` (v1.x) or `lane_segment` (v2.x)");
    }
    std::string lanes = "lc";
    if (segments) {
      lanes = "ls";
      prediction.format = FrameFormat::kLaneSegment;
      parse_lane_segments(member(predictions, "lane_segment", "predictions."), prediction);
      parse_areas(member(predictions, "area", "predictions."), prediction);
    } else {
      parse_lanes(member(predictions, "lane_centerline", "predictions."), prediction);
    }
    parse_elements(member(predictions, "traffic_element", "predictions."), prediction);
    const std::size_t n = prediction.num_lanes();
    const std::string lane_lane = "topology_" + lanes + lanes;
    const std::string lane_element = "topology_" + lanes + "te";
    prediction.topology_lclc =
        matrix(member(predictions, lane_lane.c_str(), "predictions."), n, n, lane_lane);
    prediction.topology_lcte = matrix(member(predictions, lane_element.c_str(), "predictions."), n,
                                      prediction.num_traffic_elements(), lane_element);
    return prediction;
  }

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw input_error(where_ + ": `" + path + "`: " + message);
  }

  const Json& member(const Json& object, const char* name, const std::string& prefix) const {
    if (!object.is_object()) fail(prefix.empty() ? "(frame)" : prefix, "expected an object");
    const auto it = object.find(name);
    if (it == object.end()) fail(prefix + name, "missing");
    return *it;
  }

  // `path()` names the value; it is only built for an error message.
  template <typename Path>
  float number(const Json& value, const Path& path) const {
    if (!value.is_number()) fail(path(), "expected a number, got " + value.dump());
    const float result = value.get<float>();
    if (!std::isfinite(result)) fail(path(), "expected a finite float32 number");
    return result;
  }

  long long integer(const Json& value, const std::string& path) const {
    if (!value.is_number_integer()) fail(path, "expected an integer, got " + value.dump());
    return value.get<long long>();
  }

  // v1.x ids are unique among all of a frame's objects, v2.x ids within each list (LaneSegNet
  // numbers lane segments and traffic elements alike from 20000).
  void unique_id(const Json& value, const std::string& path, const std::string& list) {
    const long long id = integer(value, path);
    if (!ids_[list].insert(id).second) fail(path, "id " + std::to_string(id) + " is used twice");
  }

  std::vector<std::array<float, 3>> polyline(const Json& points, const std::string& path) const {
    if (!points.is_array() || points.empty()) fail(path, "expected n >= 1 points");
    std::vector<std::array<float, 3>> parsed(points.size());
    for (std::size_t k = 0; k < points.size(); ++k) {
      const auto point_path = [&] { return path + "[" + std::to_string(k) + "]"; };
      if (!points[k].is_array() || points[k].size() != 3) fail(point_path(), "expected [x, y, z]");
      for (std::size_t d = 0; d < 3; ++d) parsed[k][d] = number(points[k][d], point_path);
    }
    return parsed;
  }

  int index(const Json& value, const std::string& path, int first, std::size_t count,
            const std::string& what) const {
    const long long v = integer(value, path);
    if (v < first || v >= first + static_cast<long long>(count)) {
      fail(path, std::to_string(v) + " is not " + what + ", expected an integer in [" +
                     std::to_string(first) + ", " +
                     std::to_string(first + static_cast<long long>(count)) + ")");
    }
    return static_cast<int>(v);
  }

  void parse_lanes(const Json& lanes, FramePrediction& prediction) {
    if (!lanes.is_array()) fail("lane_centerline", "expected a list");
    prediction.lanes.reserve(lanes.size());
    for (std::size_t i = 0; i < lanes.size(); ++i) {
      const std::string path = "lane_centerline[" + std::to_string(i) + "]";
      const Json& lane = lanes[i];
      LanePrediction parsed;
      unique_id(member(lane, "id", path + "."), path + ".id", "");
      parsed.points = polyline(member(lane, "points", path + "."), path + ".points");
      parsed.confidence =
          number(member(lane, "confidence", path + "."), [&] { return path + ".confidence"; });
      prediction.lanes.push_back(std::move(parsed));
    }
  }

  void parse_lane_segments(const Json& lanes, FramePrediction& prediction) {
    if (!lanes.is_array()) fail("lane_segment", "expected a list");
    prediction.lanes.reserve(lanes.size());
    for (std::size_t i = 0; i < lanes.size(); ++i) {
      const std::string path = "lane_segment[" + std::to_string(i) + "]";
      const Json& lane = lanes[i];
      LanePrediction parsed;
      unique_id(member(lane, "id", path + "."), path + ".id", "lane_segment");
      parsed.points = polyline(member(lane, "centerline", path + "."), path + ".centerline");
      parsed.left_laneline =
          polyline(member(lane, "left_laneline", path + "."), path + ".left_laneline");
      parsed.right_laneline =
          polyline(member(lane, "right_laneline", path + "."), path + ".right_laneline");
      parsed.left_laneline_type =
          index(member(lane, "left_laneline_type", path + "."), path + ".left_laneline_type", 0,
                kLaneLineTypeNames.size(), "a line type (0 none, 1 solid, 2 dash)");
      parsed.right_laneline_type =
          index(member(lane, "right_laneline_type", path + "."), path + ".right_laneline_type", 0,
                kLaneLineTypeNames.size(), "a line type (0 none, 1 solid, 2 dash)");
      parsed.confidence =
          number(member(lane, "confidence", path + "."), [&] { return path + ".confidence"; });
      prediction.lanes.push_back(std::move(parsed));
    }
  }

  void parse_areas(const Json& areas, FramePrediction& prediction) {
    if (!areas.is_array()) fail("area", "expected a list");
    prediction.areas.reserve(areas.size());
    for (std::size_t i = 0; i < areas.size(); ++i) {
      const std::string path = "area[" + std::to_string(i) + "]";
      const Json& area = areas[i];
      AreaPrediction parsed;
      unique_id(member(area, "id", path + "."), path + ".id", "area");
      parsed.category = index(member(area, "category", path + "."), path + ".category", 1,
                              kAreaCategoryNames.size(),
                              "an area category (1 pedestrian crossing, 2 road boundary)");
      parsed.points = polyline(member(area, "points", path + "."), path + ".points");
      parsed.confidence =
          number(member(area, "confidence", path + "."), [&] { return path + ".confidence"; });
      prediction.areas.push_back(std::move(parsed));
    }
  }

  void parse_elements(const Json& elements, FramePrediction& prediction) {
    if (!elements.is_array()) fail("traffic_element", "expected a list");
    prediction.traffic_elements.reserve(elements.size());
    for (std::size_t j = 0; j < elements.size(); ++j) {
      const std::string path = "traffic_element[" + std::to_string(j) + "]";
      const Json& element = elements[j];
      TrafficElementPrediction parsed;
      unique_id(member(element, "id", path + "."), path + ".id",
                prediction.format == FrameFormat::kLaneSegment ? "traffic_element" : "");
      parsed.attribute =
          static_cast<int>(integer(member(element, "attribute", path + "."), path + ".attribute"));
      const Json& points = member(element, "points", path + ".");
      const bool shaped = points.is_array() && points.size() == 2 && points[0].is_array() &&
                          points[0].size() == 2 && points[1].is_array() && points[1].size() == 2;
      if (!shaped) fail(path + ".points", "expected [[x1, y1], [x2, y2]]");
      const auto box_path = [&] { return path + ".points"; };
      parsed.box = {number(points[0][0], box_path), number(points[0][1], box_path),
                    number(points[1][0], box_path), number(points[1][1], box_path)};
      if (parsed.box[2] < parsed.box[0] || parsed.box[3] < parsed.box[1]) {
        fail(path + ".points", "expected x1 <= x2 and y1 <= y2, got " + points.dump());
      }
      parsed.confidence =
          number(member(element, "confidence", path + "."), [&] { return path + ".confidence"; });
      prediction.traffic_elements.push_back(parsed);
    }
  }

  // `rows` rows of `cols` numbers; `[]` stands for zero rows.
  std::vector<float> matrix(const Json& value, std::size_t rows, std::size_t cols,
                            const std::string& name) const {
    const std::string shape = std::to_string(rows) + " x " + std::to_string(cols);
    if (!value.is_array() || value.size() != rows) {
      fail(name, "expected " + std::to_string(rows) + " rows (" + shape + ", `[]` when there " +
                     "are no lanes), got " +
                     (value.is_array() ? std::to_string(value.size()) + " rows" : value.dump()));
    }
    std::vector<float> values;
    values.reserve(rows * cols);
    for (std::size_t r = 0; r < rows; ++r) {
      const auto row_path = [&] { return name + "[" + std::to_string(r) + "]"; };
      if (!value[r].is_array() || value[r].size() != cols) {
        fail(row_path(), "expected a row of " + std::to_string(cols) + " numbers (" + shape + ")");
      }
      for (const Json& entry : value[r]) values.push_back(number(entry, row_path));
    }
    return values;
  }

  std::string where_;
  std::map<std::string, std::set<long long>> ids_;  // by list, "" for every v1.x list
};

// Streams the top level of the results file: metadata members are checked and dropped, each frame
// of "results" is built as a small DOM and converted at once.
class ResultsHandler : public nlohmann::json_sax<Json> {
 public:
  explicit ResultsHandler(std::string source) : source_(std::move(source)) {}

  std::vector<FramePrediction> take() {
    if (!seen_results_) throw input_error("results " + source_ + ": missing member `results`");
    return std::move(frames_);
  }

  bool null() override { return value(nullptr); }
  bool boolean(bool v) override { return value(v); }
  bool number_integer(number_integer_t v) override { return value(v); }
  bool number_unsigned(number_unsigned_t v) override { return value(v); }
  bool number_float(number_float_t v, const string_t&) override { return value(v); }
  bool string(string_t& v) override { return value(v); }
  bool binary(binary_t&) override { return fail_here("binary values are not JSON"); }

  bool start_object(std::size_t) override { return container(Json::object()); }
  bool start_array(std::size_t) override { return container(Json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  bool key(string_t& name) override {
    if (builder_.active()) {
      if (!builder_.key(name)) fail_here("member `" + name + "` appears twice in frame " + key_);
      return true;
    }
    key_ = name;
    if (depth_ == 2) {
      if (!keys_seen_.insert(name).second) fail_here("frame " + name + " appears twice");
    } else if (name == "results" && seen_results_) {
      fail_here("member `results` appears twice");
    }
    return true;
  }

  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& error) override {
    const std::string frame = depth_ == 2 && builder_.active() ? " (in frame " + key_ + ")" : "";
    throw input_error("results " + source_ + ": malformed JSON at byte " +
                      std::to_string(position) + frame + ": " + error.what());
  }

 private:
  bool fail_here(const std::string& message) const {
    throw input_error("results " + source_ + ": " + message);
  }

  template <typename Value>
  bool value(Value&& v) {
    if (builder_.active()) {
      if (builder_.scalar(std::forward<Value>(v))) finish_value();
      return true;
    }
    if (depth_ == 0) fail_here("expected a JSON object at the top level");
    if (depth_ == 2) fail_here("frame " + key_ + ": expected an object {\"predictions\": ...}");
    if (key_ == "results") fail_here("`results`: expected an object of frames");
    builder_.begin();  // a scalar metadata member
    builder_.scalar(std::forward<Value>(v));
    finish_value();
    return true;
  }

  bool container(Json empty) {
    if (builder_.active()) {
      builder_.start(std::move(empty));
      return true;
    }
    if (depth_ == 0) {
      if (!empty.is_object()) fail_here("expected a JSON object at the top level");
      depth_ = 1;
      return true;
    }
    if (depth_ == 1 && key_ == "results") {
      if (!empty.is_object()) fail_here("`results`: expected an object of frames");
      seen_results_ = true;
      depth_ = 2;
      return true;
    }
    builder_.begin();
    builder_.start(std::move(empty));
    return true;
  }

  bool close() {
    if (builder_.active()) {
      if (builder_.end()) finish_value();
      return true;
    }
    --depth_;
    return true;
  }

  void finish_value() {
    Json value = builder_.take();
    if (depth_ == 2) {
      frames_.push_back(FrameParser(source_, key_).parse(value, parse_frame_key(key_, source_)));
    } else {
      check_metadata(value);
    }
  }

  // The metadata check_results enforces: `authors` a list of at most 10 names, other known
  // members strings, `country / region` one that ISO 3166 knows. Unknown top-level members are
  // ignored.
  void check_metadata(const Json& value) const {
    if (key_ == "authors") {
      if (!value.is_array() || value.size() > 10) {
        fail_here("`authors`: expected a list of at most 10 names");
      }
      return;
    }
    static const std::set<std::string> kStringMembers = {
        "method", "e-mail", "institution / company", "country / region"};
    if (kStringMembers.count(key_) && !value.is_string()) {
      fail_here("`" + key_ + "`: expected a string");
    }
    if (key_ == "country / region" && !is_iso3166_country(value.get<std::string>())) {
      fail_here("`country / region`: '" + value.get<std::string>() +
                "' is not an ISO 3166 country name or code");
    }
  }

  std::string source_;
  int depth_ = 0;  // containers open outside the value being built
  std::string key_;
  bool seen_results_ = false;
  std::set<std::string> keys_seen_;
  ValueBuilder builder_;
  std::vector<FramePrediction> frames_;
};

}  // namespace

std::vector<FramePrediction> parse_results(const std::string& text, const std::string& source) {
  ResultsHandler handler(source);
  Json::sax_parse(text, &handler);
  return handler.take();
}

std::vector<FramePrediction> read_results_file(const std::filesystem::path& path) {
  return parse_results(read_file(path, "results"), path.string());
}

std::vector<FramePrediction> read_results_file(const std::filesystem::path& path,
                                               const std::vector<FrameId>& frames) {
  return align_to_frames(read_results_file(path), frames, path.string());
}

std::vector<FramePrediction> align_to_frames(std::vector<FramePrediction> predictions,
                                             const std::vector<FrameId>& frames,
                                             const std::string& source) {
  std::map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < predictions.size(); ++i) {
    position.emplace(predictions[i].frame.key(), i);
  }
  std::vector<FramePrediction> aligned;
  aligned.reserve(frames.size());
  for (const FrameId& frame : frames) {
    const auto it = position.find(frame.key());
    if (it == position.end()) {
      throw input_error("results " + source + ": frame " + frame.key() +
                        " of the ground truth is missing");
    }
    aligned.push_back(std::move(predictions[it->second]));
    position.erase(it);
  }
  if (!position.empty()) {
    throw input_error("results " + source + ": frame " + position.begin()->first +
                      " is not in the ground truth (" + std::to_string(position.size()) +
                      " extra frame(s))");
  }
  return aligned;
}

}  // namespace olv2
