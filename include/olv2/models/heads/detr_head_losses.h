#pragma once
// The losses of the DETR-style heads, named and ordered per decoder layer as mmdet's, and their
// config keys.
#include <ATen/core/Tensor.h>

#include <string>
#include <utility>
#include <vector>

#include "olv2/assign/assign_result.h"
#include "olv2/config/schema.h"

namespace olv2 {

struct DetrHeadLosses {
  // In the original order: loss_cls, loss_bbox, (loss_iou), then d{i}.* for
  // earlier layers.
  std::vector<std::pair<std::string, at::Tensor>> losses;
  std::vector<std::vector<AssignResult>> assign_results;  // [decoder layer][sample]
};

// Declares a DETR head's loss keys: `loss_cls` (FocalLoss, required: the original's default, a
// softmax cross-entropy, is not supported), `loss_bbox` (L1Loss), `loss_iou` (GIoULoss).
void declare_detr_loss_keys(Schema& head);

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
