#pragma once
// TopoNet's `FFN_SGNN`: the feed-forward block of its scene-graph decoder layers, an FFN followed
// by two graph layers over the lanes and the traffic elements, with its config.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"

namespace olv2 {

// Defaults: the original class's.
struct SceneGraphFfnOptions {
  int64_t embed_dims = 256;
  int64_t feedforward_channels = 512;
  int64_t num_fcs = 2;
  double ffn_drop = 0.1;  // every dropout of the block, the graph part's included
  bool add_identity = true;
  // The weight of the graph edges: the previous layer's relation probabilities are scaled by it.
  // 0 drops the lane-to-lane edges (and their weights) but keeps the traffic-element edges at 0.
  double edge_weight = 0.5;
  int64_t num_te_classes = 13;  // the traffic-element head's classes, one weight matrix each

  // TopoNet's `type: FFN_SGNN` as a layer's `ffn_cfgs` (a dict or a list of one).
  static Schema schema();
  static SceneGraphFfnOptions from_config(const ConfigNode& ffn_cfgs);
};

// What the graph layers read besides the lane queries, for one decoder layer.
struct SceneGraphInputs {
  at::Tensor te_query;       // [B, T, E] the traffic-element embeddings of this layer
  at::Tensor te_cls_scores;  // [B, T, num_te_classes] the traffic-element logits of this layer
  at::Tensor lclc_adj;       // [B, Q, Q] the previous layer's lane-lane probabilities
  at::Tensor lcte_adj;       // [B, Q, T] the previous layer's lane-traffic-element probabilities
};

// TopoNet's `LclcSkgGCNLayer`: x W + w A (x W_f) + w A^T (x W_b) over the lane graph A
// (`weight`, `weight_forward`, `weight_backward`, each [in, out]).
class LaneGraphLayerImpl : public torch::nn::Module {
 public:
  LaneGraphLayerImpl(int64_t in_features, int64_t out_features, double edge_weight);
  // x [B, Q, in], adjacency [B, Q, Q] -> [B, Q, out]
  at::Tensor forward(const at::Tensor& x, const at::Tensor& adjacency);

 private:
  double edge_weight_;
  at::Tensor weight_forward_, weight_backward_, weight_;
};
TORCH_MODULE(LaneGraphLayer);

// TopoNet's `LcteSkgGCNLayer`: each traffic element's embedding weighted by its (detached)
// class probabilities and transformed per class (`weight` [classes, in, out], summed over the
// classes), then gathered into the lanes along w A.
class LaneTrafficElementGraphLayerImpl : public torch::nn::Module {
 public:
  LaneTrafficElementGraphLayerImpl(int64_t in_features, int64_t out_features, int64_t num_classes,
                                   double edge_weight);
  // te_query [B, T, in], adjacency [B, Q, T], te_cls_scores [B, T, classes] -> [B, Q, out]
  at::Tensor forward(const at::Tensor& te_query, const at::Tensor& adjacency,
                     const at::Tensor& te_cls_scores);

 private:
  double edge_weight_;
  at::Tensor weight_;
};
TORCH_MODULE(LaneTrafficElementGraphLayer);

// TopoNet `FFN_SGNN`: `layers` = num_fcs blocks of (Linear, ReLU, Dropout), the last back to
// embed_dims (keys `layers.i.0.*`); then the lane graph (`lclc_gnn_layer`) on its output and the
// traffic-element graph (`lcte_gnn_layer`), concatenated, ReLU, Dropout, `downsample` (2E -> E),
// Dropout; returns identity + that (identity defaults to the input). Sequence-first [Q, B, E].
class SceneGraphFfnImpl : public torch::nn::Module {
 public:
  explicit SceneGraphFfnImpl(const SceneGraphFfnOptions& options);
  at::Tensor forward(const at::Tensor& lanes, const SceneGraphInputs& graph,
                     const at::Tensor& identity = {});
  void set_dropout(double p);

 private:
  SceneGraphFfnOptions options_;
  torch::nn::ModuleList layers_{nullptr};
  LaneGraphLayer lclc_gnn_layer_{nullptr};
  LaneTrafficElementGraphLayer lcte_gnn_layer_{nullptr};
  torch::nn::Linear downsample_{nullptr};
  torch::nn::Dropout gnn_dropout1_{nullptr};
  torch::nn::Dropout gnn_dropout2_{nullptr};
};
TORCH_MODULE(SceneGraphFfn);

}  // namespace olv2
