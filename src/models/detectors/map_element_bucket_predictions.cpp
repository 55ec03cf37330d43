#include "olv2/models/detectors/map_element_bucket_predictions.h"

#include <torch/torch.h>

#include <array>

#include "olv2/data/polyline_resample.h"
#include "olv2/models/detectors/lanesegnet_predictions.h"
#include "olv2/util/autocast_guard.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

constexpr int64_t kAreaResultPoints = 20;

void add_areas(const Detections& areas, FramePrediction& prediction) {
  if (!areas.objects.defined()) return;
  const at::Tensor class_scores = areas.scores.detach().to(torch::kCPU, torch::kFloat);
  const auto [best, labels] = class_scores.max(-1);
  const at::Tensor points = areas.objects.detach().to(torch::kCPU, torch::kDouble).contiguous();
  const auto label = labels.accessor<int64_t, 1>();
  const auto score = best.accessor<float, 1>();
  for (const int64_t v : by_descending_confidence(best)) {
    const at::Tensor set = points[v];
    const auto p = set.accessor<double, 2>();
    std::vector<std::array<double, 3>> line;
    for (int64_t k = 0; k < p.size(0); ++k) {
      line.push_back({p[k][0], p[k][1], p.size(1) == 3 ? p[k][2] : 0.0});
    }
    AreaPrediction area;
    for (const std::array<double, 3>& q : resample_by_length(line, kAreaResultPoints)) {
      area.points.push_back(
          {static_cast<float>(q[0]), static_cast<float>(q[1]), static_cast<float>(q[2])});
    }
    area.category = static_cast<int>(label[v]) + 1;
    area.confidence = score[v];
    prediction.areas.push_back(std::move(area));
  }
}

// The traffic elements by descending score; returns that order.
std::vector<int64_t> add_traffic_elements(const Detections& te, FramePrediction& prediction) {
  if (!te.objects.defined()) return {};
  const at::Tensor boxes = te.objects.detach().to(torch::kCPU, torch::kFloat).contiguous();
  const at::Tensor scores = te.scores.detach().to(torch::kCPU, torch::kFloat).contiguous();
  const std::vector<int64_t> order = by_descending_confidence(scores);
  const auto rows = boxes.accessor<float, 2>();
  const auto score = scores.accessor<float, 1>();
  for (const int64_t i : order) {
    TrafficElementPrediction element;
    element.box = {rows[i][0], rows[i][1], rows[i][2], rows[i][3]};
    element.attribute = static_cast<int>(rows[i][4]);
    element.confidence = score[i];
    prediction.traffic_elements.push_back(element);
  }
  return order;
}

}  // namespace

std::vector<FramePrediction> map_element_bucket_frame_predictions(
    const Batch& batch, const std::vector<FrameTestOutputs>& outputs, int64_t points_num) {
  const AutocastGuard float32(c10::DeviceType::CPU, AutocastState{});
  std::vector<FramePrediction> predictions =
      lanesegnet_frame_predictions(batch, outputs, points_num);
  for (size_t b = 0; b < outputs.size(); ++b) {
    const FrameTestOutputs& r = outputs[b];
    FramePrediction& prediction = predictions[b];
    add_areas(r.areas, prediction);
    const std::vector<int64_t> elements = add_traffic_elements(r.te, prediction);
    // lanesegnet_frame_predictions lists every query (one class) in this order.
    const std::vector<int64_t> lanes =
        by_descending_confidence(std::get<0>(r.lc.scores.detach().to(torch::kFloat).max(-1)));
    if (r.lcte.defined()) {
      const at::Tensor probabilities = r.lcte.detach().to(torch::kCPU, torch::kFloat);
      const auto lste = probabilities.accessor<float, 2>();
      for (const int64_t i : lanes) {
        for (const int64_t j : elements) prediction.topology_lcte.push_back(lste[i][j]);
      }
    } else {
      prediction.topology_lcte.assign(lanes.size() * elements.size(), 0.0f);
    }
  }
  return predictions;
}

}  // namespace olv2
