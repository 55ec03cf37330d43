#pragma once
// The object heads: DETR-style set predictors of lanes (on the BEV) and of traffic elements (on
// the front camera), one interface and one output vocabulary, chosen by `type`.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "olv2/assign/assigner.h"
#include "olv2/config/config_node.h"
#include "olv2/config/registry.h"
#include "olv2/data/bev_range.h"
#include "olv2/models/heads/detr_head_losses.h"

namespace olv2 {

// The image a head looks at: the padded batch input (h, w) and each sample's un-padded (h, w).
// A lane head's image is the BEV grid.
struct DetrImageGeometry {
  std::pair<int64_t, int64_t> batch_input_shape{0, 0};
  std::vector<std::pair<int64_t, int64_t>> img_shapes;
};

// What every object head returns, for each of its L decoder layers.
struct HeadOutputs {
  at::Tensor cls_scores;    // [L, B, Q, C] logits
  at::Tensor reg_preds;     // [L, B, Q, R] in the head's own coordinates (see its loss)
  at::Tensor query_states;  // [L, B, Q, E] decoder output, the relation heads' input
  // The head's transformer outputs under the names its tests compare with the original's.
  std::map<std::string, at::Tensor> intermediates;
};

// One sample's last-layer predictions, every query in order.
struct Detections {
  // Lanes: [Q, 3K] control points in metres. Boxes: [Q, 5] x1, y1, x2, y2 (pixels), label.
  at::Tensor objects;
  // Lanes: [Q, C] sigmoid. Boxes: [Q] the best class probability.
  at::Tensor scores;
};

class ObjectHeadImpl : public torch::nn::Module {
 public:
  // levels: feature maps [B, C, h, w], finest first (a lane head's one level is the BEV).
  virtual HeadOutputs forward(const std::vector<at::Tensor>& levels,
                              const DetrImageGeometry& geometry) = 0;

  // Losses of every decoder layer against per-sample ground truth ([G, R]: lanes in metres,
  // boxes x1, y1, x2, y2 in pixels of the un-padded image) and labels ([G]), in mmdet's names
  // and order, with every layer's matching. `reduce_mean` averages a count over the ranks
  // (empty: one process).
  virtual DetrHeadLosses loss(const HeadOutputs& outputs, const std::vector<at::Tensor>& gt_objects,
                              const std::vector<at::Tensor>& gt_labels,
                              const DetrImageGeometry& geometry,
                              const std::function<double(double)>& reduce_mean) const = 0;

  // The last layer's detections of `sample`. Boxes are scaled to img_shape (h, w), clamped to
  // it, then divided by scale_factor ([w, h, w, h]) unless it is empty; lane heads ignore both.
  virtual Detections decode(const HeadOutputs& outputs, int64_t sample,
                            std::pair<int64_t, int64_t> img_shape,
                            const std::vector<double>& scale_factor) const = 0;

  // Sets every dropout probability of the head.
  virtual void set_dropout(double p) = 0;
};

// An object head's options, as read from a head section.
struct ObjectHeadOptions {
  virtual ~ObjectHeadOptions() = default;
  virtual std::shared_ptr<ObjectHeadImpl> build() const = 0;
  virtual AssignedObjects objects() const = 0;
  // The ground area a lane head predicts in ([x_min, y_min, z_min, x_max, y_max, z_max], ego
  // metres); none for a box head.
  virtual std::optional<BevRange> bev_range() const = 0;
};

// The heads a lane head's `type` may name (`lc_head`, `pts_bbox_head`).
const Registry<ObjectHeadOptions>& lane_head_registry();
// The heads a traffic-element head's `type` may name (`te_head`, `bbox_head`).
const Registry<ObjectHeadOptions>& traffic_element_head_registry();

// The lane head of `section`; a head configured for boxes is an input error naming the section.
std::shared_ptr<const ObjectHeadOptions> read_lane_head(const ConfigNode& section);
// The traffic-element head of `section`; a head configured for lanes is an input error.
std::shared_ptr<const ObjectHeadOptions> read_traffic_element_head(const ConfigNode& section);

}  // namespace olv2
