#include "olv2/evaluation/submission_writer.h"

#include <ATen/ATen.h>

#include <array>
#include <cmath>
#include <string>

#include "olv2/evaluation/prediction_ids.h"
#include "olv2/util/error.h"
#include "olv2/util/filesystem.h"
#include "olv2/util/pth/numpy_values.h"
#include "olv2/util/pth/pickle_emitter.h"

namespace olv2 {

namespace {

using P = PickleEmitter;

// Lane points are read as one float array.
static_assert(sizeof(std::array<float, 3>) == 3 * sizeof(float));

// A frame's numbers, checked as they are written.
class FrameWriter {
 public:
  FrameWriter(PickleEmitter& out, const FramePrediction& prediction)
      : out_(out), prediction_(prediction) {}

  void write() {
    const FrameId& frame = prediction_.frame;
    out_.string(frame.split);
    out_.string(frame.segment_id);
    out_.string(frame.timestamp);
    out_.op(P::kTuple3);
    out_.op(P::kEmptyDict);
    out_.string("predictions");
    out_.op(P::kEmptyDict);
    out_.op(P::kMark);
    const bool segments = prediction_.format == FrameFormat::kLaneSegment;
    if (segments) {
      out_.string("lane_segment");
      write_lane_segments();
      out_.string("area");
      write_areas();
    } else {
      out_.string("lane_centerline");
      write_lanes();
    }
    out_.string("traffic_element");
    write_traffic_elements();
    const std::size_t n = prediction_.num_lanes();
    const std::size_t m = prediction_.num_traffic_elements();
    const char* lane_lane = segments ? "topology_lsls" : "topology_lclc";
    const char* lane_element = segments ? "topology_lste" : "topology_lcte";
    out_.string(lane_lane);
    write_matrix(prediction_.topology_lclc, n, n, lane_lane);
    out_.string(lane_element);
    write_matrix(prediction_.topology_lcte, n, m, lane_element);
    out_.op(P::kSetItems);
    out_.op(P::kSetItem);  // {'predictions': ...}
    out_.op(P::kSetItem);  // results[key] = that
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw runtime_error("submission: frame " + prediction_.frame.key() + ": " + what);
  }

  at::Tensor finite_floats(const float* values, std::vector<int64_t> shape, const char* what) {
    at::Tensor array = at::empty(shape, at::kFloat);
    const int64_t count = array.numel();
    float* data = array.data_ptr<float>();
    for (int64_t i = 0; i < count; ++i) {
      if (!std::isfinite(values[i])) fail(std::string(what) + " is not finite");
      data[i] = values[i];
    }
    return array;
  }

  void confidence(float value, const char* what) {
    emit_numpy_scalar(out_, finite_floats(&value, {}, what));
  }

  void write_lanes() {
    out_.op(P::kEmptyList);
    if (prediction_.lanes.empty()) return;
    out_.op(P::kMark);
    for (std::size_t i = 0; i < prediction_.lanes.size(); ++i) {
      const LanePrediction& lane = prediction_.lanes[i];
      if (lane.points.empty()) fail("lane " + std::to_string(i) + " has no points");
      out_.op(P::kEmptyDict);
      out_.op(P::kMark);
      out_.string("id");
      out_.integer(lane_prediction_id(i));
      out_.string("points");
      emit_numpy_array(
          out_, finite_floats(lane.points.front().data(),
                              {static_cast<int64_t>(lane.points.size()), 3}, "a lane point"));
      out_.string("confidence");
      confidence(lane.confidence, "a lane confidence");
      out_.op(P::kSetItems);
    }
    out_.op(P::kAppends);
  }

  void polyline(const std::vector<std::array<float, 3>>& points, const std::string& what) {
    if (points.empty()) fail(what + " has no points");
    emit_numpy_array(out_,
                     finite_floats(points.front().data(), {static_cast<int64_t>(points.size()), 3},
                                   (what + ": a point").c_str()));
  }

  void write_lane_segments() {
    out_.op(P::kEmptyList);
    if (prediction_.lanes.empty()) return;
    out_.op(P::kMark);
    for (std::size_t i = 0; i < prediction_.lanes.size(); ++i) {
      const LanePrediction& lane = prediction_.lanes[i];
      const std::string what = "lane segment " + std::to_string(i);
      out_.op(P::kEmptyDict);
      out_.op(P::kMark);
      out_.string("id");
      out_.integer(lane_prediction_id(i));
      out_.string("centerline");
      polyline(lane.points, what + " centerline");
      out_.string("left_laneline");
      polyline(lane.left_laneline, what + " left_laneline");
      out_.string("right_laneline");
      polyline(lane.right_laneline, what + " right_laneline");
      out_.string("left_laneline_type");
      out_.integer(lane.left_laneline_type);
      out_.string("right_laneline_type");
      out_.integer(lane.right_laneline_type);
      out_.string("confidence");
      confidence(lane.confidence, "a lane segment confidence");
      out_.op(P::kSetItems);
    }
    out_.op(P::kAppends);
  }

  void write_areas() {
    out_.op(P::kEmptyList);
    if (prediction_.areas.empty()) return;
    out_.op(P::kMark);
    for (std::size_t k = 0; k < prediction_.areas.size(); ++k) {
      const AreaPrediction& area = prediction_.areas[k];
      out_.op(P::kEmptyDict);
      out_.op(P::kMark);
      out_.string("id");
      out_.integer(area_prediction_id(prediction_, k));
      out_.string("category");
      out_.integer(area.category);
      out_.string("points");
      polyline(area.points, "area " + std::to_string(k));
      out_.string("confidence");
      confidence(area.confidence, "an area confidence");
      out_.op(P::kSetItems);
    }
    out_.op(P::kAppends);
  }

  void write_traffic_elements() {
    out_.op(P::kEmptyList);
    if (prediction_.traffic_elements.empty()) return;
    out_.op(P::kMark);
    for (std::size_t j = 0; j < prediction_.traffic_elements.size(); ++j) {
      const TrafficElementPrediction& element = prediction_.traffic_elements[j];
      out_.op(P::kEmptyDict);
      out_.op(P::kMark);
      out_.string("id");
      out_.integer(traffic_element_prediction_id(prediction_, j));
      out_.string("attribute");
      out_.integer(element.attribute);
      out_.string("points");
      emit_numpy_array(out_, finite_floats(element.box.data(), {2, 2}, "a box coordinate"));
      out_.string("confidence");
      confidence(element.confidence, "a traffic element confidence");
      out_.op(P::kSetItems);
    }
    out_.op(P::kAppends);
  }

  void write_matrix(const std::vector<float>& values, std::size_t rows, std::size_t cols,
                    const char* name) {
    if (values.size() != rows * cols) {
      fail(std::string(name) + " has " + std::to_string(values.size()) + " entries, expected " +
           std::to_string(rows) + " x " + std::to_string(cols));
    }
    emit_numpy_array(
        out_, finite_floats(values.data(), {static_cast<int64_t>(rows), static_cast<int64_t>(cols)},
                            "a topology score"));
  }

  PickleEmitter& out_;
  const FramePrediction& prediction_;
};

void write_metadata(PickleEmitter& out, const SubmissionMetadata& metadata) {
  const auto member = [&](const char* key, const std::string& value) {
    if (value.empty()) return;
    out.string(key);
    out.string(value);
  };
  member("method", metadata.method);
  if (!metadata.authors.empty()) {
    out.string("authors");
    out.op(P::kEmptyList);
    out.op(P::kMark);
    for (const std::string& author : metadata.authors) out.string(author);
    out.op(P::kAppends);
  }
  member("e-mail", metadata.e_mail);
  member("institution / company", metadata.institution);
  member("country / region", metadata.country);
}

}  // namespace

void write_submission(std::ostream& out, const std::vector<FramePrediction>& predictions,
                      const SubmissionMetadata& metadata) {
  PickleEmitter pickle(3);
  pickle.op(P::kEmptyDict);
  pickle.op(P::kMark);
  write_metadata(pickle, metadata);
  pickle.string("results");
  pickle.op(P::kEmptyDict);
  for (const FramePrediction& prediction : predictions) {
    FrameWriter(pickle, prediction).write();
    pickle.drain_into(out);
  }
  pickle.op(P::kSetItems);
  pickle.stop();
  pickle.drain_into(out);
}

void write_submission_file(const std::filesystem::path& path,
                           const std::vector<FramePrediction>& predictions,
                           const SubmissionMetadata& metadata) {
  write_file_atomic(path, [&](std::ostream& out) { write_submission(out, predictions, metadata); });
}

}  // namespace olv2
