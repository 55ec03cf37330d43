#pragma once
// The classification and regression losses of one decoder layer of a lane head that matches
// lane point sets to the ground truth (OpenLane-V2's LCDeformableDETRHead and TopoNet's
// TopoNetHead share them: `_get_target_single` and the first half of `loss_single`).
#include <ATen/core/Tensor.h>

#include <functional>
#include <vector>

#include "olv2/assign/assign_result.h"
#include "olv2/assign/assigner.h"
#include "olv2/config/config_node.h"
#include "olv2/losses/loss.h"

namespace olv2 {

struct LaneSetLossSettings {
  const Loss* loss_cls = nullptr;   // of class scores
  const Loss* loss_bbox = nullptr;  // of lane points, in metres
  const Assigner* assigner = nullptr;
  int64_t num_classes = 1;  // sigmoid classes; label num_classes is the background
  int64_t code_size = 0;    // the regressed values per lane
  bool sync_cls_avg_factor = false;
  at::Tensor code_weights;  // [code_size]
};

// A lane head's `code_weights` key: one weight per regressed value, ones when absent; an input
// error naming the key when there are not `code_size` of them.
std::vector<double> read_code_weights(const ConfigNode& head, int64_t code_size);

// The settings of a lane head whose options have the fields above by the same names.
template <typename HeadOptions>
LaneSetLossSettings lane_set_loss_settings(const HeadOptions& options, const Assigner& assigner,
                                           const at::Tensor& code_weights) {
  LaneSetLossSettings settings;
  settings.loss_cls = options.loss_cls.get();
  settings.loss_bbox = options.loss_bbox.get();
  settings.assigner = &assigner;
  settings.num_classes = options.num_classes;
  settings.code_size = options.code_size;
  settings.sync_cls_avg_factor = options.sync_cls_avg_factor;
  settings.code_weights = code_weights;
  return settings;
}

struct LaneSetLayerLosses {
  at::Tensor cls, reg;
  std::vector<AssignResult> assign;  // per sample
  // What the losses were divided by: the positives of the batch (averaged over the ranks when
  // sync_cls_avg_factor), and their average over the ranks; each at least 1.
  double cls_avg_factor = 1.0;
  double reg_avg_factor = 1.0;
};

// One decoder layer: cls_scores [B, Q, C] logits, lanes [B, Q, code_size] metres, against each
// sample's GT lanes ([G, code_size] metres) and labels ([G]). The classification loss is
// averaged over the positives (synchronised over the ranks when `sync_cls_avg_factor`), the
// regression loss over the positives of every rank; `reduce_mean` averages a count over the
// ranks (empty: one process). Each sample is matched by the settings' assigner unless `assign`
// gives its matching (a head whose assigner needs more than classes and points).
LaneSetLayerLosses lane_set_layer_losses(const LaneSetLossSettings& settings,
                                         const at::Tensor& cls_scores, const at::Tensor& lanes,
                                         const std::vector<at::Tensor>& gt_lanes,
                                         const std::vector<at::Tensor>& gt_labels,
                                         const std::function<double(double)>& reduce_mean,
                                         std::vector<AssignResult> assign = {});

// The matching of one sample: cls_scores [Q, C], lanes [Q, code_size], GT as above.
AssignResult assign_lane_set(const LaneSetLossSettings& settings, const at::Tensor& cls_scores,
                             const at::Tensor& lanes, const at::Tensor& gt_lanes,
                             const at::Tensor& gt_labels);

}  // namespace olv2
