#include "olv2/models/detectors/toponet_predictions.h"

#include <torch/torch.h>

#include "olv2/data/polyline_resample.h"
#include "olv2/util/autocast_guard.h"

namespace olv2 {

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
    const std::vector<int64_t> lane_order = by_descending_confidence(best);
    const at::Tensor lanes = r.lc.objects.detach().to(torch::kCPU, torch::kDouble).contiguous();
    for (int64_t q : lane_order) {
      const at::Tensor lane = lanes[q].view({-1, pts_dim});
      auto a = lane.accessor<double, 2>();
      std::vector<std::array<double, 3>> points;
      for (int64_t k = 0; k < lane.size(0); ++k) {
        points.push_back({a[k][0], a[k][1], pts_dim == 3 ? a[k][2] : 0.0});
      }
      LanePrediction prediction_lane;
      for (const std::array<double, 3>& p : resample_by_length(points, 11)) {
        prediction_lane.points.push_back(
            {static_cast<float>(p[0]), static_cast<float>(p[1]), static_cast<float>(p[2])});
      }
      prediction_lane.confidence = best[q].item<float>();
      prediction.lanes.push_back(std::move(prediction_lane));
    }

    const at::Tensor boxes = r.te.objects.detach().to(torch::kCPU, torch::kFloat).contiguous();
    const at::Tensor box_scores = r.te.scores.detach().to(torch::kCPU, torch::kFloat).contiguous();
    const std::vector<int64_t> box_order = by_descending_confidence(box_scores);
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
