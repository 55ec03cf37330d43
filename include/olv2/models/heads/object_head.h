#pragma once
// The object heads: DETR-style set predictors of lanes (on the BEV) and of traffic elements (on
// the front camera), one interface and one output vocabulary, chosen by `type`.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "olv2/assign/assign_result.h"
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
  // The relations a lane head predicts itself (ObjectHeadOptions::predicts_relations), logits:
  // lane-lane [L, B, Q, Q, 1] and lane-traffic-element [L, B, Q, T, 1]. Undefined otherwise.
  at::Tensor lclc;
  at::Tensor lcte;
  // The head's transformer outputs under the names its tests compare with the original's.
  std::map<std::string, at::Tensor> intermediates;
};

// The traffic-element head's outputs of every layer, as a lane head that predicts the relations
// itself decodes with them: decoder states [L, B, T, E] and logits [L, B, T, C].
struct TrafficElementContext {
  at::Tensor states;
  at::Tensor cls_scores;
};

// What the relations such a head predicts are scored against: per sample the lane-lane
// ([G, G]) and lane-traffic-element ([G, G_te]) adjacency, and the traffic-element head's
// matching of every layer (`traffic_element_assign[layer][sample]`).
struct RelationTargets {
  std::vector<at::Tensor> lclc;
  std::vector<at::Tensor> lcte;
  std::vector<std::vector<AssignResult>> traffic_element_assign;
};

// One sample's last-layer predictions, every query in order.
struct Detections {
  // Lanes: [Q, K * point_dims] points in metres (ObjectHeadOptions::lane_point_dims). Boxes:
  // [Q, 5] x1, y1, x2, y2 (pixels), label.
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

  // The forward and losses of a lane head that decodes with the traffic elements and predicts
  // the relations itself (ObjectHeadOptions::predicts_relations: TopoNet's); the other heads
  // read neither the context nor the relation targets.
  virtual HeadOutputs forward_with_context(const std::vector<at::Tensor>& levels,
                                           const DetrImageGeometry& geometry,
                                           const TrafficElementContext& /*traffic_elements*/) {
    return forward(levels, geometry);
  }
  virtual DetrHeadLosses loss_with_relations(
      const HeadOutputs& outputs, const std::vector<at::Tensor>& gt_objects,
      const std::vector<at::Tensor>& gt_labels, const DetrImageGeometry& geometry,
      const RelationTargets& /*relations*/,
      const std::function<double(double)>& reduce_mean) const {
    return loss(outputs, gt_objects, gt_labels, geometry, reduce_mean);
  }
};

// An object head's options, as read from a head section.
struct ObjectHeadOptions {
  virtual ~ObjectHeadOptions() = default;
  virtual std::shared_ptr<ObjectHeadImpl> build() const = 0;
  virtual AssignedObjects objects() const = 0;
  // The ground area a lane head predicts in ([x_min, y_min, z_min, x_max, y_max, z_max], ego
  // metres); none for a box head.
  virtual std::optional<BevRange> bev_range() const = 0;
  // A lane head's coordinates per lane point: 3 (x, y, z), or 2 (x, y); 0 for a box head.
  virtual int64_t lane_point_dims() const = 0;
  // The decoder layers, each with its predictions and losses.
  virtual int64_t decoder_layers() const = 0;
  // Whether the head is run with the traffic-element head's outputs (forward_with_context) and
  // predicts the lane-lane and lane-traffic-element relations itself (TopoNet's lane head).
  virtual bool predicts_relations() const { return false; }
};

// The last decoder layer's lanes of `sample`, from a head that regresses them in metres: the
// points [Q, R] and their sigmoid scores [Q, C], every query in order.
Detections last_layer_lanes(const HeadOutputs& outputs, int64_t sample);

// The heads a lane head's `type` may name (`lc_head`, `pts_bbox_head`).
const Registry<ObjectHeadOptions>& lane_head_registry();
// The heads a traffic-element head's `type` may name (`te_head`, `bbox_head`).
const Registry<ObjectHeadOptions>& traffic_element_head_registry();

// The lane head of `section`; a head configured for boxes is an input error naming the section,
// and so is one whose predicts_relations() differs from `with_traffic_elements` (whether the
// detector runs it with the traffic-element context).
std::shared_ptr<const ObjectHeadOptions> read_lane_head(const ConfigNode& section,
                                                        bool with_traffic_elements = false);
// The traffic-element head of `section`; a head configured for lanes is an input error.
std::shared_ptr<const ObjectHeadOptions> read_traffic_element_head(const ConfigNode& section);

}  // namespace olv2
