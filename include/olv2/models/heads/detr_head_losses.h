#pragma once
// The losses of the DETR-style heads, named and ordered per decoder layer as mmdet's, and their
// config keys.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "olv2/assign/assign_result.h"
#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/losses/loss.h"

namespace olv2 {

struct DetrHeadLosses {
  // In the original order: loss_cls, loss_bbox, (loss_iou), then d{i}.* for
  // earlier layers.
  std::vector<std::pair<std::string, at::Tensor>> losses;
  std::vector<std::vector<AssignResult>> assign_results;  // [decoder layer][sample]
};

// mmdet DETRHead's normalisers of a layer's losses, from its `num_pos` matched queries: the
// classification loss's (the background weight is 0, so the positives alone; averaged over the
// ranks with sync_cls_avg_factor) and the regression losses' (always averaged over the ranks),
// each at least 1. `reduce_mean` averages a count over the ranks (empty: one process); it is
// called in that order, as the original's all-reduces are.
struct DetrAverageFactors {
  double cls;
  double regression;
};
DetrAverageFactors detr_average_factors(int64_t num_pos, bool sync_cls_avg_factor,
                                        const std::function<double(double)>& reduce_mean);

// Declares a DETR head's loss keys, each any registered loss: `loss_cls` (required: the
// original's default, a softmax cross-entropy, is not registered), `loss_bbox`, `loss_iou`.
void declare_detr_loss_keys(Schema& head);

// Reads them over the head's defaults: `loss_cls` of class scores, `loss_bbox` of `regressed`
// objects and, where `loss_iou` is given (box heads), `loss_iou` of boxes; a lane head leaves
// its `loss_iou` unread, as the original configures one and never evaluates it.
void read_detr_losses(const ConfigNode& head, PredictionKind regressed,
                      std::shared_ptr<const Loss>& loss_cls, std::shared_ptr<const Loss>& loss_bbox,
                      std::shared_ptr<const Loss>* loss_iou);

// A DETR head's losses in mmdet's order and names: the last decoder layer's terms as they are,
// then each earlier layer l's as `d<l>.<term>`; and every layer's matching (`layer.assign`).
// `terms(layer)` lists one layer's (name, value) pairs.
template <typename LayerLosses, typename Terms>
DetrHeadLosses collect_layer_losses(std::vector<LayerLosses>& layers, Terms terms) {
  DetrHeadLosses result;
  const auto add = [&](const std::string& prefix, const LayerLosses& layer) {
    for (auto& [name, value] : terms(layer)) result.losses.emplace_back(prefix + name, value);
  };
  add("", layers.back());
  for (size_t l = 0; l + 1 < layers.size(); ++l) add("d" + std::to_string(l) + ".", layers[l]);
  for (LayerLosses& layer : layers) result.assign_results.push_back(std::move(layer.assign));
  return result;
}

}  // namespace olv2
