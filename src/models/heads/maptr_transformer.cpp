#include "olv2/models/heads/maptr_transformer.h"

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "olv2/models/heads/lane_branches.h"
#include "olv2/models/heads/lane_transformer_init.h"
#include "olv2/models/layers/deformable_detr_transformer.h"
#include "olv2/models/layers/transformer_layer.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

TransformerLayerOptions maptr_layer_options(const MapTrTransformerOptions& options) {
  TransformerLayerOptions layer =
      bev_decoder_layer(options.self_attention, options.cross_attention);
  layer.ffn = options.ffn;
  return layer;
}

void check_options(const MapTrTransformerOptions& options) {
  require_bev_decoder_layer("MapTRTransformerDecoderOnly", options.embed_dims,
                            maptr_layer_options(options));
  if (options.cross_attention.per_head_reference_points) {
    throw input_error(
        "MapTRDecoder: every head samples around the query's one reference point; LaneAttention "
        "is LaneSegNet's lane-segment decoder's");
  }
  if (options.pts_dim != 2 && options.pts_dim != 3) {
    throw input_error("MapTRTransformerDecoderOnly: pts_dim must be 2 or 3, got " +
                      std::to_string(options.pts_dim));
  }
  if (options.num_layers < 1) {
    throw input_error("MapTRDecoder: num_layers must be at least 1, got " +
                      std::to_string(options.num_layers));
  }
}

}  // namespace

MapTrTransformerImpl::MapTrTransformerImpl(const MapTrTransformerOptions& options)
    : options_(options) {
  check_options(options);
  auto decoder = register_module("decoder", std::make_shared<torch::nn::Module>());
  layers_ = decoder->register_module(
      "layers", transformer_layers(maptr_layer_options(options), options.num_layers));
  reference_points_ =
      register_module("reference_points", torch::nn::Linear(options.embed_dims, options.pts_dim));
  reset_parameters();
}

void MapTrTransformerImpl::reset_parameters() { init_lane_transformer(*this, reference_points_); }

void MapTrTransformerImpl::set_dropout(double p) {
  for (const auto& module : *layers_) module->as<TransformerLayer>()->set_dropout(p);
}

MapTrDecoderOutputs MapTrTransformerImpl::forward(const at::Tensor& bev_feats,
                                                  const at::Tensor& query_embedding, int64_t bev_h,
                                                  int64_t bev_w,
                                                  const torch::nn::ModuleListImpl& reg_branches) {
  const int64_t batch = bev_feats.size(0);
  if (bev_feats.dim() != 3 || bev_feats.size(1) != bev_h * bev_w) {
    throw runtime_error("MapTRTransformerDecoderOnly: BEV features " + c10::str(bev_feats.sizes()) +
                        ", expected [B, " + std::to_string(bev_h * bev_w) + ", E]");
  }
  if (static_cast<int64_t>(reg_branches.size()) != options_.num_layers) {
    throw runtime_error("MapTRDecoder: " + std::to_string(reg_branches.size()) +
                        " regression branches for " + std::to_string(options_.num_layers) +
                        " layers");
  }
  const auto halves = query_embedding.split(options_.embed_dims, 1);
  const at::Tensor query_pos = halves[0].unsqueeze(0).expand({batch, -1, -1});  // [B, Q, E]
  const at::Tensor query = halves[1].unsqueeze(0).expand({batch, -1, -1});
  MapTrDecoderOutputs out;
  out.init_reference = reference_points_(query_pos).sigmoid();
  const SpatialShapes bev_shape{{bev_h, bev_w}};
  TransformerLayerInputs inputs;
  inputs.value = bev_feats.permute({1, 0, 2});
  inputs.query_pos = query_pos.permute({1, 0, 2});
  inputs.spatial_shapes = &bev_shape;

  at::Tensor reference = out.init_reference;
  at::Tensor output = query.permute({1, 0, 2});
  std::vector<at::Tensor> states, references, regressions;
  for (int64_t l = 0; l < options_.num_layers; ++l) {
    inputs.reference_points = reference.narrow(-1, 0, 2).unsqueeze(2);
    output = layers_[l]->as<TransformerLayer>()->forward(output, inputs);
    const at::Tensor points = output.permute({1, 0, 2});  // [B, Q, E]
    const at::Tensor regression = run_branch(*reg_branches[l]->as<torch::nn::ModuleList>(), points);
    if (regression.size(-1) != options_.pts_dim) {
      throw runtime_error("MapTRDecoder: a regression branch gives " +
                          std::to_string(regression.size(-1)) + " values, expected pts_dim " +
                          std::to_string(options_.pts_dim));
    }
    reference = (regression + inverse_sigmoid(reference)).sigmoid().detach();
    states.push_back(points);
    references.push_back(reference);
    regressions.push_back(regression);
  }
  out.inter_states = torch::stack(states);
  out.inter_references = torch::stack(references);
  out.regressions = torch::stack(regressions);
  return out;
}

}  // namespace olv2
