#include "olv2/models/detectors/lanesegnet_predictions.h"

#include <torch/torch.h>

#include <array>

#include "olv2/data/polyline_resample.h"
#include "olv2/util/autocast_guard.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

constexpr int64_t kResultPoints = 10;

// Points [first, first + count) of a query's [3 * points_num, 3] lines, optionally reversed,
// resampled to kResultPoints.
std::vector<std::array<float, 3>> line_of(const at::TensorAccessor<double, 2>& points,
                                          int64_t first, int64_t count, bool reversed) {
  std::vector<std::array<double, 3>> line;
  for (int64_t k = 0; k < count; ++k) {
    const int64_t row = first + (reversed ? count - 1 - k : k);
    line.push_back({points[row][0], points[row][1], points[row][2]});
  }
  std::vector<std::array<float, 3>> out;
  for (const std::array<double, 3>& p : resample_by_length(line, kResultPoints)) {
    out.push_back({static_cast<float>(p[0]), static_cast<float>(p[1]), static_cast<float>(p[2])});
  }
  return out;
}

}  // namespace

std::vector<FramePrediction> lanesegnet_frame_predictions(
    const Batch& batch, const std::vector<FrameTestOutputs>& outputs, int64_t points_num) {
  const AutocastGuard float32(c10::DeviceType::CPU, AutocastState{});
  std::vector<FramePrediction> predictions;
  for (size_t b = 0; b < outputs.size(); ++b) {
    const FrameTestOutputs& r = outputs[b];
    FramePrediction prediction;
    prediction.format = FrameFormat::kLaneSegment;
    prediction.frame.segment_id = batch.metas[b].scene_token;
    prediction.frame.timestamp = batch.metas[b].sample_idx;

    const at::Tensor class_scores = r.lc.scores.detach().to(torch::kCPU, torch::kFloat);
    if (class_scores.size(-1) > 2) {
      throw input_error("LaneSegNet results: " + std::to_string(class_scores.size(-1)) +
                        " classes; the lane-segment results hold lane segments (class 0) and "
                        "pedestrian crossings (class 1) only");
    }
    const auto [best, labels] = class_scores.max(-1);
    const at::Tensor scores = best.contiguous();
    const float* score = scores.data_ptr<float>();
    const std::vector<int64_t> order = by_descending_confidence(scores);

    const at::Tensor lanes = r.lc.objects.detach().to(torch::kCPU, torch::kDouble).contiguous();
    const at::Tensor types = r.line_types.detach().to(torch::kCPU, torch::kLong).contiguous();
    const auto label = labels.accessor<int64_t, 1>();
    const auto type = types.accessor<int64_t, 2>();
    std::vector<int64_t> segments;
    for (const int64_t q : order) {
      const at::Tensor points = lanes[q].view({3 * points_num, 3});
      const auto p = points.accessor<double, 2>();
      if (label[q] == 0) {
        LanePrediction lane;
        lane.points = line_of(p, 0, points_num, false);
        lane.left_laneline = line_of(p, points_num, points_num, false);
        lane.right_laneline = line_of(p, 2 * points_num, points_num, false);
        lane.left_laneline_type = static_cast<int>(type[q][0]);
        lane.right_laneline_type = static_cast<int>(type[q][1]);
        lane.confidence = score[q];
        prediction.lanes.push_back(std::move(lane));
        segments.push_back(q);
      } else {
        AreaPrediction area;
        area.points = line_of(p, points_num, points_num, false);
        const auto right = line_of(p, 2 * points_num, points_num, true);
        area.points.insert(area.points.end(), right.begin(), right.end());
        area.category = static_cast<int>(kPedestrianCrossing);
        area.confidence = score[q];
        prediction.areas.push_back(std::move(area));
      }
    }
    if (r.lclc.defined()) {
      const at::Tensor probabilities = r.lclc.detach().to(torch::kCPU, torch::kFloat);
      const auto lsls = probabilities.accessor<float, 2>();
      for (const int64_t i : segments) {
        for (const int64_t j : segments) prediction.topology_lclc.push_back(lsls[i][j]);
      }
    } else {
      prediction.topology_lclc.assign(segments.size() * segments.size(), 0.0f);
    }
    predictions.push_back(std::move(prediction));
  }
  return predictions;
}

}  // namespace olv2
