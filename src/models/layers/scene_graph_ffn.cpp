#include "olv2/models/layers/scene_graph_ffn.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema SceneGraphFfnOptions::schema() {
  Schema act = typed_schema("ReLU");
  act.optional("inplace", Schema::boolean());
  Schema schema = typed_schema("FFN_SGNN");
  schema.optional("embed_dims", Schema::integer())
      .optional("feedforward_channels", Schema::integer())
      .optional("num_fcs", Schema::integer().range(2, 16))
      .optional("ffn_drop", ratio_schema())
      .optional("act_cfg", act)
      .optional("add_identity", Schema::boolean())
      .optional("edge_weight", Schema::number())
      .optional("num_te_classes", Schema::integer().range(1, 1024));
  return Schema::either(schema, Schema::sequence(schema));
}

SceneGraphFfnOptions SceneGraphFfnOptions::from_config(const ConfigNode& ffn_cfgs) {
  const std::vector<const ConfigNode*> ffns = maps_of(ffn_cfgs);
  if (ffns.size() != 1) throw input_error(ffn_cfgs.where() + ": expected one FFN_SGNN config");
  const ConfigNode& ffn = *ffns[0];
  SceneGraphFfnOptions o;
  o.embed_dims = ffn.get<int64_t>("embed_dims", o.embed_dims);
  o.feedforward_channels = ffn.get<int64_t>("feedforward_channels", o.feedforward_channels);
  o.num_fcs = ffn.get<int64_t>("num_fcs", o.num_fcs);
  o.ffn_drop = ffn.get<double>("ffn_drop", o.ffn_drop);
  o.add_identity = ffn.get<bool>("add_identity", o.add_identity);
  o.edge_weight = ffn.get<double>("edge_weight", o.edge_weight);
  o.num_te_classes = ffn.get<int64_t>("num_te_classes", o.num_te_classes);
  return o;
}

LaneGraphLayerImpl::LaneGraphLayerImpl(int64_t in_features, int64_t out_features,
                                       double edge_weight)
    : edge_weight_(edge_weight) {
  auto xavier = [&] {
    return torch::nn::init::xavier_uniform_(torch::empty({in_features, out_features}));
  };
  if (edge_weight != 0) {
    weight_forward_ = register_parameter("weight_forward", xavier());
    weight_backward_ = register_parameter("weight_backward", xavier());
  }
  weight_ = register_parameter("weight", xavier());
}

at::Tensor LaneGraphLayerImpl::forward(const at::Tensor& x, const at::Tensor& adjacency) {
  at::Tensor output = torch::matmul(x, weight_);
  if (edge_weight_ != 0) {
    const at::Tensor adj = adjacency.to(x.scalar_type());
    output = output + edge_weight_ * torch::matmul(adj, torch::matmul(x, weight_forward_));
    output = output +
             edge_weight_ * torch::matmul(adj.transpose(1, 2), torch::matmul(x, weight_backward_));
  }
  return output;
}

LaneTrafficElementGraphLayerImpl::LaneTrafficElementGraphLayerImpl(int64_t in_features,
                                                                   int64_t out_features,
                                                                   int64_t num_classes,
                                                                   double edge_weight)
    : edge_weight_(edge_weight) {
  weight_ = register_parameter(
      "weight",
      torch::nn::init::xavier_uniform_(torch::empty({num_classes, in_features, out_features})));
}

at::Tensor LaneTrafficElementGraphLayerImpl::forward(const at::Tensor& te_query,
                                                     const at::Tensor& adjacency,
                                                     const at::Tensor& te_cls_scores) {
  if (te_cls_scores.size(-1) != weight_.size(0)) {
    throw runtime_error("LcteSkgGCNLayer: " + std::to_string(te_cls_scores.size(-1)) +
                        " traffic-element classes, the layer has weights for " +
                        std::to_string(weight_.size(0)) + " (FFN_SGNN num_te_classes)");
  }
  const at::Tensor probabilities = te_cls_scores.detach().sigmoid().unsqueeze(3);  // [B, T, C, 1]
  // [B, T, 1, E] * [B, T, C, 1] -> [B, C, T, E]
  const at::Tensor per_class = (te_query.unsqueeze(2) * probabilities).permute({0, 2, 1, 3});
  const at::Tensor support = torch::matmul(per_class, weight_).sum(1);  // [B, T, E]
  return torch::matmul(adjacency.to(support.scalar_type()) * edge_weight_, support);
}

SceneGraphFfnImpl::SceneGraphFfnImpl(const SceneGraphFfnOptions& options) : options_(options) {
  if (options.num_fcs < 2) {
    throw input_error("FFN_SGNN: num_fcs must be at least 2, got " +
                      std::to_string(options.num_fcs));
  }
  layers_ = register_module("layers", torch::nn::ModuleList());
  int64_t in_channels = options.embed_dims;
  for (int64_t i = 0; i < options.num_fcs; ++i) {
    const bool last = i + 1 == options.num_fcs;
    const int64_t out_channels = last ? options.embed_dims : options.feedforward_channels;
    layers_->push_back(torch::nn::Sequential(torch::nn::Linear(in_channels, out_channels),
                                             torch::nn::ReLU(),
                                             torch::nn::Dropout(options.ffn_drop)));
    in_channels = options.feedforward_channels;
  }
  lclc_gnn_layer_ =
      register_module("lclc_gnn_layer",
                      LaneGraphLayer(options.embed_dims, options.embed_dims, options.edge_weight));
  lcte_gnn_layer_ = register_module(
      "lcte_gnn_layer", LaneTrafficElementGraphLayer(options.embed_dims, options.embed_dims,
                                                     options.num_te_classes, options.edge_weight));
  downsample_ =
      register_module("downsample", torch::nn::Linear(2 * options.embed_dims, options.embed_dims));
  gnn_dropout1_ = register_module("gnn_dropout1", torch::nn::Dropout(options.ffn_drop));
  gnn_dropout2_ = register_module("gnn_dropout2", torch::nn::Dropout(options.ffn_drop));
}

void SceneGraphFfnImpl::set_dropout(double p) {
  options_.ffn_drop = p;
  for (auto& module : modules(/*include_self=*/false)) {
    if (auto* dropout = module->as<torch::nn::Dropout>()) dropout->options.p(p);
  }
}

at::Tensor SceneGraphFfnImpl::forward(const at::Tensor& lanes, const SceneGraphInputs& graph,
                                      const at::Tensor& identity) {
  at::Tensor out = lanes;
  for (const auto& block : *layers_) out = block->as<torch::nn::Sequential>()->forward(out);
  out = out.permute({1, 0, 2});  // [B, Q, E]
  const at::Tensor lane_features = lclc_gnn_layer_->forward(out, graph.lclc_adj);
  const at::Tensor element_features =
      lcte_gnn_layer_->forward(graph.te_query, graph.lcte_adj, graph.te_cls_scores);
  out = torch::relu(torch::cat({lane_features, element_features}, -1));
  out = gnn_dropout2_->forward(downsample_->forward(gnn_dropout1_->forward(out)));
  out = out.permute({1, 0, 2});
  if (!options_.add_identity) return out;
  return (identity.defined() ? identity : lanes) + out;
}

}  // namespace olv2
