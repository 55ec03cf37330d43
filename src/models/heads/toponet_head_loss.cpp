// Losses of TopoNetHead (the original's `_get_target_single`, `loss_single` and `loss`).
#include <torch/torch.h>

#include "olv2/models/heads/toponet_head.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

struct TopoNetLayerLosses {
  at::Tensor cls, reg, lclc, lcte;
  std::vector<AssignResult> assign;
};

void require_batch(const std::string& what, size_t count, int64_t batch) {
  if (static_cast<int64_t>(count) != batch) {
    throw runtime_error("TopoNetHead loss: " + std::to_string(count) + " " + what +
                        ", expected one per sample of the batch of " + std::to_string(batch));
  }
}

}  // namespace

LaneSetLossSettings TopoNetHeadImpl::loss_settings() const {
  return lane_set_loss_settings(options_, *assigner_, code_weights_);
}

DetrHeadLosses TopoNetHeadImpl::loss_with_relations(
    const HeadOutputs& outputs, const std::vector<at::Tensor>& gt_lanes,
    const std::vector<at::Tensor>& gt_labels, const DetrImageGeometry& /*geometry*/,
    const RelationTargets& relations, const std::function<double(double)>& reduce_mean) const {
  const std::vector<at::Tensor>& gt_lclc = relations.lclc;
  const std::vector<at::Tensor>& gt_lcte = relations.lcte;
  const std::vector<std::vector<AssignResult>>& te_assign = relations.traffic_element_assign;
  // Losses in float32, as the original's `force_fp32`.
  const at::Tensor cls_scores = outputs.cls_scores.to(torch::kFloat);
  const at::Tensor lanes_preds = outputs.reg_preds.to(torch::kFloat);
  const at::Tensor lclc = outputs.lclc.to(torch::kFloat);
  const at::Tensor lcte = outputs.lcte.to(torch::kFloat);
  const int64_t num_layers = cls_scores.size(0);
  const int64_t batch = cls_scores.size(1);
  require_batch("GT lane sets", gt_lanes.size(), batch);
  require_batch("GT label sets", gt_labels.size(), batch);
  require_batch("lane-lane adjacencies", gt_lclc.size(), batch);
  require_batch("lane-traffic-element adjacencies", gt_lcte.size(), batch);
  if (static_cast<int64_t>(te_assign.size()) != num_layers) {
    throw runtime_error("TopoNetHead loss: " + std::to_string(te_assign.size()) +
                        " traffic-element matchings for " + std::to_string(num_layers) +
                        " decoder layers");
  }
  // (x, y) lanes (subset B): TopoNet's dataset drops z before resampling, which the resampling
  // (by the length in x, y) does not see, so dropping it from 3-D points gives the same targets.
  std::vector<at::Tensor> targets = gt_lanes;
  const int64_t points = options_.code_size / options_.pts_dim;
  for (at::Tensor& lanes : targets) {
    if (options_.pts_dim == 2 && lanes.size(-1) == points * 3) {
      lanes = lanes.reshape({-1, points, 3}).narrow(-1, 0, 2).reshape({-1, options_.code_size});
    }
  }
  const LaneSetLossSettings settings = loss_settings();
  std::vector<TopoNetLayerLosses> layers;
  for (int64_t l = 0; l < num_layers; ++l) {
    LaneSetLayerLosses lanes = lane_set_layer_losses(settings, cls_scores[l], lanes_preds[l],
                                                     targets, gt_labels, reduce_mean);
    TopoNetLayerLosses layer;
    layer.cls = lanes.cls;
    layer.reg = lanes.reg;
    const auto& lclc_branch = lclc_branches_->at<RelationshipHeadImpl>(static_cast<size_t>(l));
    const auto& lcte_branch = lcte_branches_->at<RelationshipHeadImpl>(static_cast<size_t>(l));
    // The lane-lane targets come from the lanes' own matching at both ends.
    layer.lclc = lclc_branch.loss(lclc[l], lanes.assign, lanes.assign, gt_lclc);
    layer.lcte =
        lcte_branch.loss(lcte[l], lanes.assign, te_assign[static_cast<size_t>(l)], gt_lcte);
    layer.assign = std::move(lanes.assign);
    layers.push_back(std::move(layer));
  }
  return collect_layer_losses(layers, [](const TopoNetLayerLosses& layer) {
    return std::vector<std::pair<std::string, at::Tensor>>{{"loss_lane_cls", layer.cls},
                                                           {"loss_lane_reg", layer.reg},
                                                           {"loss_lclc_rel", layer.lclc},
                                                           {"loss_lcte_rel", layer.lcte}};
  });
}

}  // namespace olv2
