#include "olv2/models/heads/toponet_transformer.h"

#include <torch/torch.h>

#include <memory>
#include <vector>

#include "olv2/models/heads/lane_transformer_init.h"
#include "olv2/models/heads/relationship_head.h"
#include "olv2/models/layers/transformer_layer.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

TransformerLayerOptions sgnn_layer_options(const TopoNetTransformerOptions& options) {
  TransformerLayerOptions layer =
      bev_decoder_layer(options.self_attention, options.cross_attention);
  layer.scene_graph_ffn = options.ffn;
  return layer;
}

void check_options(const TopoNetTransformerOptions& options) {
  require_bev_decoder_layer("TopoNetTransformerDecoderOnly", options.embed_dims,
                            sgnn_layer_options(options));
  if (options.pts_dim != 2 && options.pts_dim != 3) {
    throw input_error("TopoNetTransformerDecoderOnly: pts_dim must be 2 or 3, got " +
                      std::to_string(options.pts_dim));
  }
  if (options.num_layers < 1) {
    throw input_error("TopoNetSGNNDecoder: num_layers must be at least 1, got " +
                      std::to_string(options.num_layers));
  }
}

}  // namespace

TopoNetTransformerImpl::TopoNetTransformerImpl(const TopoNetTransformerOptions& options)
    : options_(options) {
  check_options(options);
  auto decoder = register_module("decoder", std::make_shared<torch::nn::Module>());
  layers_ = decoder->register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < options.num_layers; ++i) {
    layers_->push_back(TransformerLayer(sgnn_layer_options(options)));
  }
  reference_points_ =
      register_module("reference_points", torch::nn::Linear(options.embed_dims, options.pts_dim));
  reset_parameters();
}

void TopoNetTransformerImpl::reset_parameters() { init_lane_transformer(*this, reference_points_); }

void TopoNetTransformerImpl::set_dropout(double p) {
  for (const auto& module : *layers_) module->as<TransformerLayer>()->set_dropout(p);
}

TopoNetDecoderOutputs TopoNetTransformerImpl::forward(
    const at::Tensor& bev_feats, const at::Tensor& query_embedding, int64_t bev_h, int64_t bev_w,
    torch::nn::ModuleListImpl& lclc_branches, torch::nn::ModuleListImpl& lcte_branches,
    const at::Tensor& te_feats, const at::Tensor& te_cls_scores) {
  const int64_t batch = bev_feats.size(0);
  const int64_t num_layers = options_.num_layers;
  if (bev_feats.dim() != 3 || bev_feats.size(1) != bev_h * bev_w) {
    throw runtime_error("TopoNetTransformerDecoderOnly: BEV features " +
                        c10::str(bev_feats.sizes()) + ", expected [B, " +
                        std::to_string(bev_h * bev_w) + ", E]");
  }
  if (te_feats.dim() != 4 || te_feats.size(0) != num_layers || te_cls_scores.dim() != 4 ||
      te_cls_scores.size(0) != num_layers ||
      static_cast<int64_t>(lclc_branches.size()) != num_layers ||
      static_cast<int64_t>(lcte_branches.size()) != num_layers) {
    throw input_error(
        "TopoNetSGNNDecoder: its " + std::to_string(num_layers) +
        " layers each need the traffic-element head's layer of the same index; the traffic-"
        "element decoder gives " +
        std::to_string(te_feats.size(0)) + " (the two num_layers must be equal)");
  }
  const auto halves = query_embedding.split(options_.embed_dims, 1);
  const at::Tensor query_pos = halves[0].unsqueeze(0).expand({batch, -1, -1});  // [B, Q, E]
  const at::Tensor query = halves[1].unsqueeze(0).expand({batch, -1, -1});
  TopoNetDecoderOutputs out;
  out.init_reference = reference_points_(query_pos).sigmoid();
  const SpatialShapes bev_shape{{bev_h, bev_w}};
  TransformerLayerInputs inputs;
  inputs.value = bev_feats.permute({1, 0, 2});
  inputs.query_pos = query_pos.permute({1, 0, 2});
  inputs.reference_points = out.init_reference.narrow(-1, 0, 2).unsqueeze(2);
  inputs.spatial_shapes = &bev_shape;

  const int64_t num_queries = query.size(1);
  SceneGraphInputs graph;
  graph.lclc_adj = torch::zeros({batch, num_queries, num_queries}, query.options());
  graph.lcte_adj = torch::zeros({batch, num_queries, te_feats.size(2)}, query.options());
  inputs.scene_graph = &graph;
  at::Tensor output = query.permute({1, 0, 2});
  std::vector<at::Tensor> states, lclc, lcte;
  for (int64_t l = 0; l < num_layers; ++l) {
    graph.te_query = te_feats[l];
    graph.te_cls_scores = te_cls_scores[l];
    output = layers_[l]->as<TransformerLayer>()->forward(output, inputs);
    const at::Tensor lanes = output.permute({1, 0, 2});  // [B, Q, E]
    lclc.push_back(lclc_branches[l]->as<RelationshipHeadImpl>()->score_pairs(lanes, lanes));
    lcte.push_back(lcte_branches[l]->as<RelationshipHeadImpl>()->score_pairs(lanes, te_feats[l]));
    graph.lclc_adj = lclc.back().squeeze(-1).sigmoid().detach();
    graph.lcte_adj = lcte.back().squeeze(-1).sigmoid().detach();
    states.push_back(lanes);
  }
  out.inter_states = torch::stack(states);
  out.lclc = torch::stack(lclc);
  out.lcte = torch::stack(lcte);
  return out;
}

}  // namespace olv2
