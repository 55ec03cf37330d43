#include "olv2/evaluation/results_writer.h"

#include <array>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "olv2/evaluation/prediction_ids.h"
#include "olv2/util/error.h"
#include "olv2/util/filesystem.h"

namespace olv2 {
namespace {

// Appends numbers and punctuation to one string; numbers get 9 significant digits.
class JsonText {
 public:
  explicit JsonText(const FrameId& frame) : frame_(frame) {}

  void raw(const char* text) { text_ += text; }
  void raw(char c) { text_ += c; }
  void integer(long long value) { text_ += std::to_string(value); }
  void string(const std::string& value) { text_ += nlohmann::json(value).dump(); }
  void number(float value, const char* what) {
    if (!std::isfinite(value)) {
      throw runtime_error("results: frame " + frame_.key() + ": " + what + " is not finite");
    }
    char buffer[32];
    const auto result =
        std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::general, 9);
    text_.append(buffer, result.ptr);
  }
  const std::string& text() const { return text_; }

 private:
  const FrameId& frame_;
  std::string text_;
};

void write_polyline(JsonText& out, const std::vector<std::array<float, 3>>& points,
                    const char* what) {
  out.raw('[');
  for (std::size_t k = 0; k < points.size(); ++k) {
    out.raw(k ? ", [" : "[");
    for (std::size_t d = 0; d < 3; ++d) {
      if (d) out.raw(", ");
      out.number(points[k][d], what);
    }
    out.raw(']');
  }
  out.raw(']');
}

void require_points(const FramePrediction& prediction, const char* what, std::size_t index,
                    const std::vector<std::array<float, 3>>& points) {
  if (points.empty()) {
    throw runtime_error("results: frame " + prediction.frame.key() + ": " + what + " " +
                        std::to_string(index) + " has no points");
  }
}

void write_lanes(JsonText& out, const FramePrediction& prediction) {
  out.raw("\"lane_centerline\": [");
  for (std::size_t i = 0; i < prediction.lanes.size(); ++i) {
    const LanePrediction& lane = prediction.lanes[i];
    require_points(prediction, "lane", i, lane.points);
    out.raw(i ? ", {\"id\": " : "{\"id\": ");
    out.integer(lane_prediction_id(i));
    out.raw(", \"points\": ");
    write_polyline(out, lane.points, "a lane point");
    out.raw(", \"confidence\": ");
    out.number(lane.confidence, "a lane confidence");
    out.raw('}');
  }
  out.raw(']');
}

void write_lane_segments(JsonText& out, const FramePrediction& prediction) {
  out.raw("\"lane_segment\": [");
  for (std::size_t i = 0; i < prediction.lanes.size(); ++i) {
    const LanePrediction& lane = prediction.lanes[i];
    require_points(prediction, "lane segment", i, lane.points);
    require_points(prediction, "lane segment (left laneline)", i, lane.left_laneline);
    require_points(prediction, "lane segment (right laneline)", i, lane.right_laneline);
    out.raw(i ? ", {\"id\": " : "{\"id\": ");
    out.integer(lane_prediction_id(i));
    out.raw(", \"centerline\": ");
    write_polyline(out, lane.points, "a centerline point");
    out.raw(", \"left_laneline\": ");
    write_polyline(out, lane.left_laneline, "a laneline point");
    out.raw(", \"right_laneline\": ");
    write_polyline(out, lane.right_laneline, "a laneline point");
    out.raw(", \"left_laneline_type\": ");
    out.integer(lane.left_laneline_type);
    out.raw(", \"right_laneline_type\": ");
    out.integer(lane.right_laneline_type);
    out.raw(", \"confidence\": ");
    out.number(lane.confidence, "a lane segment confidence");
    out.raw('}');
  }
  out.raw("], \"area\": [");
  for (std::size_t k = 0; k < prediction.areas.size(); ++k) {
    const AreaPrediction& area = prediction.areas[k];
    require_points(prediction, "area", k, area.points);
    out.raw(k ? ", {\"id\": " : "{\"id\": ");
    out.integer(area_prediction_id(prediction, k));
    out.raw(", \"category\": ");
    out.integer(area.category);
    out.raw(", \"points\": ");
    write_polyline(out, area.points, "an area point");
    out.raw(", \"confidence\": ");
    out.number(area.confidence, "an area confidence");
    out.raw('}');
  }
  out.raw(']');
}

void write_traffic_elements(JsonText& out, const FramePrediction& prediction) {
  out.raw("\"traffic_element\": [");
  for (std::size_t j = 0; j < prediction.traffic_elements.size(); ++j) {
    const TrafficElementPrediction& element = prediction.traffic_elements[j];
    out.raw(j ? ", {\"id\": " : "{\"id\": ");
    out.integer(traffic_element_prediction_id(prediction, j));
    out.raw(", \"attribute\": ");
    out.integer(element.attribute);
    out.raw(", \"points\": [[");
    out.number(element.box[0], "a box coordinate");
    out.raw(", ");
    out.number(element.box[1], "a box coordinate");
    out.raw("], [");
    out.number(element.box[2], "a box coordinate");
    out.raw(", ");
    out.number(element.box[3], "a box coordinate");
    out.raw("]], \"confidence\": ");
    out.number(element.confidence, "a traffic element confidence");
    out.raw('}');
  }
  out.raw(']');
}

// `rows` rows of `cols` numbers; `[]` when there are no rows.
void write_matrix(JsonText& out, const FramePrediction& prediction, const char* name,
                  const std::vector<float>& values, std::size_t rows, std::size_t cols) {
  if (values.size() != rows * cols) {
    throw runtime_error("results: frame " + prediction.frame.key() + ": " + name + " has " +
                        std::to_string(values.size()) + " entries, expected " +
                        std::to_string(rows) + " x " + std::to_string(cols));
  }
  out.raw('"');
  out.raw(name);
  out.raw("\": [");
  for (std::size_t r = 0; r < rows; ++r) {
    out.raw(r ? ", [" : "[");
    for (std::size_t c = 0; c < cols; ++c) {
      if (c) out.raw(", ");
      out.number(values[r * cols + c], "a topology score");
    }
    out.raw(']');
  }
  out.raw(']');
}

std::string frame_text(const FramePrediction& prediction) {
  JsonText out(prediction.frame);
  out.string(prediction.frame.key());
  out.raw(": {\"predictions\": {");
  const bool segments = prediction.format == FrameFormat::kLaneSegment;
  if (segments) {
    write_lane_segments(out, prediction);
  } else {
    write_lanes(out, prediction);
  }
  out.raw(", ");
  write_traffic_elements(out, prediction);
  out.raw(", ");
  const std::size_t n = prediction.num_lanes();
  write_matrix(out, prediction, segments ? "topology_lsls" : "topology_lclc",
               prediction.topology_lclc, n, n);
  out.raw(", ");
  write_matrix(out, prediction, segments ? "topology_lste" : "topology_lcte",
               prediction.topology_lcte, n, prediction.num_traffic_elements());
  out.raw("}}");
  return out.text();
}

void write_metadata(std::ostream& out, const SubmissionMetadata& metadata) {
  const auto member = [&](const char* key, const nlohmann::json& value) {
    out << nlohmann::json(key).dump() << ": " << value.dump() << ", ";
  };
  if (!metadata.method.empty()) member("method", metadata.method);
  if (!metadata.authors.empty()) member("authors", metadata.authors);
  if (!metadata.e_mail.empty()) member("e-mail", metadata.e_mail);
  if (!metadata.institution.empty()) member("institution / company", metadata.institution);
  if (!metadata.country.empty()) member("country / region", metadata.country);
}

}  // namespace

void write_results(std::ostream& out, const std::vector<FramePrediction>& predictions,
                   const SubmissionMetadata& metadata) {
  out << '{';
  write_metadata(out, metadata);
  out << "\"results\": {";
  for (std::size_t f = 0; f < predictions.size(); ++f) {
    out << (f ? ",\n" : "\n") << frame_text(predictions[f]);
  }
  out << "\n}}\n";
}

void write_results_file(const std::filesystem::path& path,
                        const std::vector<FramePrediction>& predictions,
                        const SubmissionMetadata& metadata) {
  write_file_atomic(path, [&](std::ostream& out) { write_results(out, predictions, metadata); });
}

}  // namespace olv2
