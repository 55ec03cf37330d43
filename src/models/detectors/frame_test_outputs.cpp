#include "olv2/models/detectors/frame_test_outputs.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "olv2/util/autocast_guard.h"

namespace olv2 {
namespace {

// Degree-(K-1) Bernstein weights at t = 0, 0.1, ..., 1 ([11, K]), computed in double and
// rounded to float32 as the original's result formatting does.
at::Tensor bernstein_weights(int64_t num_control) {
  const int64_t degree = num_control - 1;
  at::Tensor weights = torch::empty({11, num_control}, torch::kDouble);
  auto w = weights.accessor<double, 2>();
  for (int64_t k = 0; k <= 10; ++k) {
    const double t = static_cast<double>(k) / 10.0;
    for (int64_t j = 0; j <= degree; ++j) {
      double binomial = 1.0;
      for (int64_t i = 1; i <= j; ++i)
        binomial = binomial * static_cast<double>(degree - j + i) / i;
      w[k][j] = binomial * std::pow(1.0 - t, degree - j) * std::pow(t, j);
    }
  }
  return weights.to(torch::kFloat);
}

}  // namespace

std::vector<int64_t> by_descending_confidence(const at::Tensor& scores) {
  const at::Tensor s = scores.detach().to(torch::kCPU, torch::kFloat).contiguous();
  const float* v = s.data_ptr<float>();
  std::vector<int64_t> order(static_cast<size_t>(s.numel()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [v](int64_t a, int64_t b) { return v[a] > v[b]; });
  return order;
}

std::vector<FramePrediction> frame_predictions(const Batch& batch,
                                               const std::vector<FrameTestOutputs>& outputs) {
  // The formatting is float32 on the CPU whatever autocast the forward ran under.
  const AutocastGuard float32(c10::DeviceType::CPU, AutocastState{});
  std::vector<FramePrediction> predictions;
  for (size_t b = 0; b < outputs.size(); ++b) {
    const FrameTestOutputs& r = outputs[b];
    FramePrediction prediction;
    prediction.frame.segment_id = batch.metas[b].scene_token;
    prediction.frame.timestamp = batch.metas[b].sample_idx;

    const at::Tensor control =
        r.lc.objects.detach().to(torch::kCPU, torch::kFloat).view({r.lc.objects.size(0), -1, 3});
    const at::Tensor points =
        torch::matmul(bernstein_weights(control.size(1)), control).contiguous();
    const at::Tensor lane_scores = r.lc.scores.detach().to(torch::kCPU, torch::kFloat).contiguous();
    for (int64_t i = 0; i < points.size(0); ++i) {
      LanePrediction lane;
      const at::Tensor lane_points = points[i];
      auto p = lane_points.accessor<float, 2>();
      for (int64_t k = 0; k < points.size(1); ++k)
        lane.points.push_back(std::array<float, 3>{p[k][0], p[k][1], p[k][2]});
      lane.confidence = lane_scores[i][0].item<float>();
      prediction.lanes.push_back(std::move(lane));
    }
    const at::Tensor boxes = r.te.objects.detach().to(torch::kCPU, torch::kFloat).contiguous();
    const at::Tensor box_scores = r.te.scores.detach().to(torch::kCPU, torch::kFloat).contiguous();
    for (int64_t i = 0; i < boxes.size(0); ++i) {
      const at::Tensor box = boxes[i];
      auto row = box.accessor<float, 1>();
      TrafficElementPrediction element;
      element.box = std::array<float, 4>{row[0], row[1], row[2], row[3]};
      element.attribute = static_cast<int>(row[4]);
      element.confidence = box_scores[i].item<float>();
      prediction.traffic_elements.push_back(element);
    }
    auto flatten = [](const at::Tensor& t) {
      const at::Tensor c = t.detach().to(torch::kCPU, torch::kFloat).contiguous();
      return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
    };
    prediction.topology_lclc = flatten(r.lclc);
    prediction.topology_lcte = flatten(r.lcte);
    predictions.push_back(std::move(prediction));
  }
  return predictions;
}

}  // namespace olv2
