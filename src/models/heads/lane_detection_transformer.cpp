#include "olv2/models/heads/lane_detection_transformer.h"

#include <torch/torch.h>

#include "olv2/models/heads/lane_transformer_init.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

TransformerLayerOptions decoder_layer_options(const LaneDetectionTransformerOptions& options) {
  TransformerLayerOptions layer;
  layer.attentions = {AttentionKind::kMultihead, AttentionKind::kDeformable};
  layer.multihead.embed_dims = options.embed_dims;
  layer.multihead.num_heads = options.num_heads;
  layer.multihead.dropout = options.attention_dropout;
  layer.deformable.embed_dims = options.embed_dims;
  layer.deformable.num_heads = options.num_heads;
  layer.deformable.num_levels = 1;
  layer.deformable.num_points = options.num_points;
  layer.deformable.dropout = options.msda_dropout;
  layer.deformable.batch_first = false;
  layer.ffn.embed_dims = options.embed_dims;
  layer.ffn.feedforward_channels = options.feedforward_channels;
  layer.ffn.num_fcs = 2;
  layer.ffn.ffn_drop = options.ffn_drop;
  layer.operation_order = {"self_attn", "norm", "cross_attn", "norm", "ffn", "norm"};
  return layer;
}

}  // namespace

LaneDetectionTransformerDecoderImpl::LaneDetectionTransformerDecoderImpl(
    const LaneDetectionTransformerOptions& options) {
  if (options.num_layers < 1) {
    throw input_error("LaneDetectionTransformerDecoder: num_layers must be at least 1, got " +
                      std::to_string(options.num_layers));
  }
  layers_ = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < options.num_layers; ++i) {
    layers_->push_back(TransformerLayer(decoder_layer_options(options)));
  }
}

at::Tensor LaneDetectionTransformerDecoderImpl::forward(const at::Tensor& query,
                                                        const at::Tensor& value,
                                                        const at::Tensor& query_pos,
                                                        const at::Tensor& reference_points,
                                                        const SpatialShapes& spatial_shapes) {
  at::Tensor output = query;
  std::vector<at::Tensor> intermediate;
  TransformerLayerInputs inputs;
  inputs.key = value;
  inputs.value = value;
  inputs.query_pos = query_pos;
  inputs.reference_points = reference_points;
  inputs.spatial_shapes = &spatial_shapes;
  for (const auto& module : *layers_) {
    output = module->as<TransformerLayer>()->forward(output, inputs);
    intermediate.push_back(output);
  }
  return torch::stack(intermediate);
}

void LaneDetectionTransformerDecoderImpl::set_dropout(double p) {
  for (const auto& module : *layers_) module->as<TransformerLayer>()->set_dropout(p);
}

PerceptionTransformerImpl::PerceptionTransformerImpl(const LaneDetectionTransformerOptions& options)
    : options_(options) {
  decoder_ = register_module("decoder", LaneDetectionTransformerDecoder(options));
  reference_points_ = register_module("reference_points", torch::nn::Linear(options.embed_dims, 3));
  reset_parameters();
}

void PerceptionTransformerImpl::reset_parameters() {
  init_lane_transformer(*this, reference_points_);
}

LaneTransformerOutputs PerceptionTransformerImpl::forward(const at::Tensor& bev_feats,
                                                          const at::Tensor& query_embedding,
                                                          int64_t bev_h, int64_t bev_w) {
  const int64_t batch = bev_feats.size(0);
  if (bev_feats.dim() != 3 || bev_feats.size(1) != bev_h * bev_w) {
    throw runtime_error("PerceptionTransformer: BEV features " + c10::str(bev_feats.sizes()) +
                        ", expected [B, " + std::to_string(bev_h * bev_w) + ", E]");
  }
  const auto halves = query_embedding.split(options_.embed_dims, 1);
  const at::Tensor query_pos = halves[0].unsqueeze(0).expand({batch, -1, -1});  // [B, Q, E]
  const at::Tensor query = halves[1].unsqueeze(0).expand({batch, -1, -1});
  LaneTransformerOutputs out;
  out.init_reference = reference_points_(query_pos).sigmoid();
  // Original behaviour: no refinement, so every layer samples at the initial (x, y).
  const at::Tensor reference_input = out.init_reference.narrow(-1, 0, 2).unsqueeze(2);
  const at::Tensor states =
      decoder_->forward(query.permute({1, 0, 2}), bev_feats.permute({1, 0, 2}),
                        query_pos.permute({1, 0, 2}), reference_input, {{bev_h, bev_w}});
  out.inter_states = states.permute({0, 2, 1, 3});
  return out;
}

}  // namespace olv2
