// Losses of LcDeformableDetrHead (the original's `loss_single` and `loss`).
#include <torch/torch.h>

#include "olv2/models/heads/lane_set_loss.h"
#include "olv2/models/heads/lc_deformable_detr_head.h"
#include "olv2/util/error.h"

namespace olv2 {

LaneSetLossSettings LcDeformableDetrHeadImpl::loss_settings() const {
  return lane_set_loss_settings(options_, *assigner_, code_weights_);
}

AssignResult LcDeformableDetrHeadImpl::assign(const at::Tensor& cls_scores,
                                              const at::Tensor& lanes_preds,
                                              const at::Tensor& gt_lanes,
                                              const at::Tensor& gt_labels) const {
  return assign_lane_set(loss_settings(), cls_scores, lanes_preds, gt_lanes, gt_labels);
}

DetrHeadLosses LcDeformableDetrHeadImpl::loss(
    const HeadOutputs& outputs, const std::vector<at::Tensor>& gt_lanes,
    const std::vector<at::Tensor>& gt_labels, const DetrImageGeometry& /*geometry*/,
    const std::function<double(double)>& reduce_mean) const {
  // Losses in float32, as the original's `force_fp32`.
  const at::Tensor cls_scores = outputs.cls_scores.to(torch::kFloat);
  const at::Tensor lanes_preds = outputs.reg_preds.to(torch::kFloat);
  const int64_t num_layers = cls_scores.size(0);
  const int64_t batch = cls_scores.size(1);
  if (static_cast<int64_t>(gt_lanes.size()) != batch ||
      static_cast<int64_t>(gt_labels.size()) != batch) {
    throw runtime_error("LCDeformableDETRHead loss: ground truth for " +
                        std::to_string(gt_lanes.size()) + " lane sets and " +
                        std::to_string(gt_labels.size()) + " label sets, expected " +
                        std::to_string(batch));
  }
  const LaneSetLossSettings settings = loss_settings();
  std::vector<LaneSetLayerLosses> layers;
  for (int64_t l = 0; l < num_layers; ++l) {
    layers.push_back(lane_set_layer_losses(settings, cls_scores[l], lanes_preds[l], gt_lanes,
                                           gt_labels, reduce_mean));
  }
  return collect_layer_losses(layers, [](const LaneSetLayerLosses& layer) {
    return std::vector<std::pair<std::string, at::Tensor>>{{"loss_lane_cls", layer.cls},
                                                           {"loss_lane_reg", layer.reg}};
  });
}

}  // namespace olv2
