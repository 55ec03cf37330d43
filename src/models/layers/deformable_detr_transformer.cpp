#include "olv2/models/layers/deformable_detr_transformer.h"

#include <torch/torch.h>

#include "olv2/util/autocast_guard.h"
#include "olv2/util/error.h"

namespace olv2 {

at::Tensor inverse_sigmoid(const at::Tensor& x, double eps) {
  const at::Tensor clamped = x.clamp(0.0, 1.0);
  return torch::log(clamped.clamp_min(eps) / (1 - clamped).clamp_min(eps));
}

at::Tensor valid_ratios(const at::Tensor& mask) {
  const at::Tensor valid = mask.logical_not();
  const at::Tensor valid_h = valid.select(2, 0).sum(1).to(torch::kFloat) / mask.size(1);
  const at::Tensor valid_w = valid.select(1, 0).sum(1).to(torch::kFloat) / mask.size(2);
  return torch::stack({valid_w, valid_h}, -1);
}

at::Tensor encoder_reference_points(const SpatialShapes& spatial_shapes,
                                    const at::Tensor& valid_ratios) {
  const auto options = valid_ratios.options().dtype(torch::kFloat);
  std::vector<at::Tensor> levels;
  for (size_t l = 0; l < spatial_shapes.size(); ++l) {
    const auto [h, w] = spatial_shapes[l];
    const auto grid = torch::meshgrid(
        {torch::linspace(0.5, h - 0.5, h, options), torch::linspace(0.5, w - 0.5, w, options)},
        "ij");
    const at::Tensor ratio = valid_ratios.select(1, static_cast<int64_t>(l)).unsqueeze(1);
    const at::Tensor ref_y = grid[0].reshape({1, -1}) / (ratio.select(2, 1) * h);
    const at::Tensor ref_x = grid[1].reshape({1, -1}) / (ratio.select(2, 0) * w);
    levels.push_back(torch::stack({ref_x, ref_y}, -1));
  }
  return torch::cat(levels, 1).unsqueeze(2) * valid_ratios.unsqueeze(1);
}

namespace {

// The reference handed to a decoder layer: scaled into every level by its valid ratios,
// [B, Q, L, 2] for points, [B, Q, L, 4] for boxes.
at::Tensor reference_per_level(const at::Tensor& reference, const at::Tensor& valid_ratios) {
  const at::Tensor ratios =
      reference.size(-1) == 4 ? torch::cat({valid_ratios, valid_ratios}, -1) : valid_ratios;
  return reference.unsqueeze(2) * ratios.unsqueeze(1);
}

// Refined reference from a regression output [B, Q, 4] (fp32 whatever autocast produced): a
// point reference only moves the centre and takes (w, h) from the regression directly.
at::Tensor refined_reference(const at::Tensor& delta, const at::Tensor& reference) {
  const at::Tensor offset = delta.to(torch::kFloat);
  if (reference.size(-1) == 4) return (offset + inverse_sigmoid(reference)).sigmoid();
  return torch::cat({offset.slice(-1, 0, 2) + inverse_sigmoid(reference), offset.slice(-1, 2)}, -1)
      .sigmoid();
}

}  // namespace

DeformableDetrEncoderImpl::DeformableDetrEncoderImpl(const TransformerLayerOptions& layer,
                                                     int64_t num_layers) {
  layers_ = register_module("layers", transformer_layers(layer, num_layers));
}

at::Tensor DeformableDetrEncoderImpl::forward(at::Tensor query, const at::Tensor& query_pos,
                                              const at::Tensor& key_padding_mask,
                                              const at::Tensor& reference_points,
                                              const SpatialShapes& spatial_shapes) {
  TransformerLayerInputs inputs;
  inputs.query_pos = query_pos;
  inputs.query_key_padding_mask = key_padding_mask;
  inputs.reference_points = reference_points;
  inputs.spatial_shapes = &spatial_shapes;
  for (auto& layer : *layers_) query = layer->as<TransformerLayer>()->forward(query, inputs);
  return query;
}

DeformableDetrDecoderImpl::DeformableDetrDecoderImpl(const TransformerLayerOptions& layer,
                                                     int64_t num_layers) {
  layers_ = register_module("layers", transformer_layers(layer, num_layers));
}

DeformableDetrDecoderOutputs DeformableDetrDecoderImpl::forward(
    at::Tensor query, const at::Tensor& memory, const at::Tensor& query_pos,
    const at::Tensor& key_padding_mask, at::Tensor reference_points, const at::Tensor& valid_ratios,
    const SpatialShapes& spatial_shapes, const RegressionBranch& refine) {
  std::vector<at::Tensor> states, references;
  TransformerLayerInputs inputs;
  inputs.key = memory;
  inputs.value = memory;
  inputs.query_pos = query_pos;
  inputs.key_padding_mask = key_padding_mask;
  inputs.spatial_shapes = &spatial_shapes;
  for (size_t i = 0; i < layers_->size(); ++i) {
    inputs.reference_points = reference_per_level(reference_points, valid_ratios);
    query = layers_[i]->as<TransformerLayer>()->forward(query, inputs);
    if (refine) {
      const at::Tensor delta = refine(static_cast<int64_t>(i), query.permute({1, 0, 2}));
      reference_points = refined_reference(delta, reference_points).detach();
    }
    states.push_back(query);
    references.push_back(reference_points);
  }
  return {torch::stack(states), torch::stack(references)};
}

DeformableDetrTransformerImpl::DeformableDetrTransformerImpl(
    const DeformableDetrTransformerOptions& options)
    : options_(options) {
  level_embeds_ = register_parameter(
      "level_embeds", torch::empty({options.num_feature_levels, options.embed_dims}));
  encoder_ = register_module(
      "encoder", DeformableDetrEncoder(options.encoder_layer, options.num_encoder_layers));
  decoder_ = register_module(
      "decoder", DeformableDetrDecoder(options.decoder_layer, options.num_decoder_layers));
  reference_points_ = register_module("reference_points", torch::nn::Linear(options.embed_dims, 2));
  reset_parameters();
}

void DeformableDetrTransformerImpl::set_dropout(double p) {
  for (auto& module : modules(/*include_self=*/false)) {
    if (auto* layer = module->as<TransformerLayer>()) layer->set_dropout(p);
  }
}

void DeformableDetrTransformerImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  for (auto& parameter : parameters()) {
    if (parameter.dim() > 1) torch::nn::init::xavier_uniform_(parameter);
  }
  for (auto& module : modules(/*include_self=*/false)) {
    if (auto* attention = module->as<MultiScaleDeformableAttention>()) {
      attention->reset_parameters();
    }
  }
  torch::nn::init::xavier_uniform_(reference_points_->weight);
  reference_points_->bias.zero_();
  torch::nn::init::normal_(level_embeds_);
}

DeformableDetrTransformerOutputs DeformableDetrTransformerImpl::forward(
    const std::vector<at::Tensor>& mlvl_feats, const std::vector<at::Tensor>& mlvl_masks,
    const at::Tensor& query_embed, const std::vector<at::Tensor>& mlvl_pos,
    const RegressionBranch& refine) {
  const auto num_levels = static_cast<int64_t>(mlvl_feats.size());
  if (num_levels != options_.num_feature_levels || mlvl_masks.size() != mlvl_feats.size() ||
      mlvl_pos.size() != mlvl_feats.size()) {
    throw runtime_error("DeformableDetrTransformer: " + std::to_string(mlvl_feats.size()) +
                        " feature levels, " + std::to_string(mlvl_masks.size()) + " masks and " +
                        std::to_string(mlvl_pos.size()) + " positional encodings, expected " +
                        std::to_string(options_.num_feature_levels) + " of each");
  }
  SpatialShapes spatial_shapes;
  std::vector<at::Tensor> feats, masks, pos;
  for (int64_t l = 0; l < num_levels; ++l) {
    spatial_shapes.emplace_back(mlvl_feats[l].size(2), mlvl_feats[l].size(3));
    feats.push_back(mlvl_feats[l].flatten(2).permute({2, 0, 1}));  // [h*w, B, E]
    masks.push_back(mlvl_masks[l].flatten(1));
    pos.push_back(mlvl_pos[l].flatten(2).permute({2, 0, 1}) + level_embeds_[l].view({1, 1, -1}));
  }
  std::vector<at::Tensor> level_ratios;
  for (const at::Tensor& mask : mlvl_masks) level_ratios.push_back(valid_ratios(mask));
  const at::Tensor ratios = torch::stack(level_ratios, 1);  // [B, L, 2]
  const at::Tensor mask_flat = torch::cat(masks, 1);        // [B, S]
  const at::Tensor memory =
      encoder_(torch::cat(feats), torch::cat(pos), mask_flat,
               encoder_reference_points(spatial_shapes, ratios), spatial_shapes);

  const int64_t batch = mlvl_feats[0].size(0);
  const auto split = query_embed.split(options_.embed_dims, 1);
  const at::Tensor query_pos = split[0].unsqueeze(1).expand({-1, batch, -1});  // [Q, B, E]
  const at::Tensor query = split[1].unsqueeze(1).expand({-1, batch, -1});
  at::Tensor init_reference;
  {
    // The reference positions the sampling, so it stays fp32 under autocast.
    const AutocastOff float32;
    init_reference = torch::linear(query_pos.permute({1, 0, 2}).to(torch::kFloat),
                                   reference_points_->weight, reference_points_->bias)
                         .sigmoid();
  }
  DeformableDetrDecoderOutputs decoded =
      decoder_(query, memory, query_pos, mask_flat, init_reference, ratios, spatial_shapes, refine);
  return {decoded.inter_states, init_reference, decoded.inter_references};
}

}  // namespace olv2
