#include "olv2/models/detectors/toponet_predictions.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "olv2/util/autocast_guard.h"

namespace olv2 {
namespace {

// Indices of `scores` by decreasing value (ties keep their order).
std::vector<int64_t> by_confidence(const at::Tensor& scores) {
  const at::Tensor s = scores.to(torch::kCPU, torch::kFloat).contiguous();
  const float* v = s.data_ptr<float>();
  std::vector<int64_t> order(static_cast<size_t>(s.numel()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [v](int64_t a, int64_t b) { return v[a] > v[b]; });
  return order;
}

}  // namespace

std::vector<std::array<float, 3>> resample_by_length(
    const std::vector<std::array<double, 3>>& points, int64_t count) {
  std::vector<double> cumulative{0.0};
  for (size_t i = 1; i < points.size(); ++i) {
    cumulative.push_back(cumulative.back() + std::hypot(points[i][0] - points[i - 1][0],
                                                        points[i][1] - points[i - 1][1]));
  }
  const double length = cumulative.back();
  std::vector<std::array<float, 3>> out;
  size_t segment = 0;
  for (int64_t k = 0; k < count; ++k) {
    const double at =
        count > 1 ? length * static_cast<double>(k) / static_cast<double>(count - 1) : 0.0;
    while (segment + 2 < points.size() && cumulative[segment + 1] < at) ++segment;
    std::array<double, 3> p = points[segment];
    if (points.size() > 1) {
      const double span = cumulative[segment + 1] - cumulative[segment];
      const double t = span > 0 ? std::clamp((at - cumulative[segment]) / span, 0.0, 1.0) : 0.0;
      for (size_t d = 0; d < 3; ++d) p[d] += t * (points[segment + 1][d] - points[segment][d]);
    }
    out.push_back({static_cast<float>(p[0]), static_cast<float>(p[1]), static_cast<float>(p[2])});
  }
  return out;
}

std::vector<FramePrediction> toponet_frame_predictions(const Batch& batch,
                                                       const std::vector<FrameTestOutputs>& outputs,
                                                       int64_t pts_dim) {
  const AutocastGuard float32(c10::DeviceType::CPU, AutocastState{});
  std::vector<FramePrediction> predictions;
  for (size_t b = 0; b < outputs.size(); ++b) {
    const FrameTestOutputs& r = outputs[b];
    FramePrediction prediction;
    prediction.frame.segment_id = batch.metas[b].scene_token;
    prediction.frame.timestamp = batch.metas[b].sample_idx;

    const at::Tensor lane_scores = r.lc.scores.detach().to(torch::kCPU, torch::kFloat);
    const at::Tensor best = lane_scores.dim() == 2 ? std::get<0>(lane_scores.max(-1)) : lane_scores;
    const std::vector<int64_t> lane_order = by_confidence(best);
    const at::Tensor lanes = r.lc.objects.detach().to(torch::kCPU, torch::kDouble).contiguous();
    for (int64_t q : lane_order) {
      const at::Tensor lane = lanes[q].view({-1, pts_dim});
      auto a = lane.accessor<double, 2>();
      std::vector<std::array<double, 3>> points;
      for (int64_t k = 0; k < lane.size(0); ++k) {
        points.push_back({a[k][0], a[k][1], pts_dim == 3 ? a[k][2] : 0.0});
      }
      LanePrediction prediction_lane;
      prediction_lane.points = resample_by_length(points, 11);
      prediction_lane.confidence = best[q].item<float>();
      prediction.lanes.push_back(std::move(prediction_lane));
    }

    const at::Tensor boxes = r.te.objects.detach().to(torch::kCPU, torch::kFloat).contiguous();
    const at::Tensor box_scores = r.te.scores.detach().to(torch::kCPU, torch::kFloat).contiguous();
    const std::vector<int64_t> box_order = by_confidence(box_scores);
    auto box_rows = boxes.accessor<float, 2>();
    for (int64_t i : box_order) {
      const auto row = box_rows[i];
      TrafficElementPrediction element;
      element.box = std::array<float, 4>{row[0], row[1], row[2], row[3]};
      element.attribute = static_cast<int>(row[4]);
      element.confidence = box_scores[i].item<float>();
      prediction.traffic_elements.push_back(element);
    }

    const at::Tensor lclc_probabilities = r.lclc.detach().to(torch::kCPU, torch::kFloat);
    const at::Tensor lcte_probabilities = r.lcte.detach().to(torch::kCPU, torch::kFloat);
    auto lclc = lclc_probabilities.accessor<float, 2>();
    auto lcte = lcte_probabilities.accessor<float, 2>();
    for (int64_t i : lane_order) {
      for (int64_t j : lane_order) prediction.topology_lclc.push_back(lclc[i][j]);
    }
    for (int64_t i : lane_order) {
      for (int64_t j : box_order) prediction.topology_lcte.push_back(lcte[i][j]);
    }
    predictions.push_back(std::move(prediction));
  }
  return predictions;
}

}  // namespace olv2
