#include "olv2/models/layers/detr_transformer.h"

#include <torch/torch.h>

#include "olv2/util/compat.h"

namespace olv2 {
namespace {

torch::nn::LayerNorm make_norm(const TransformerLayerOptions& layer) {
  return torch::nn::LayerNorm(
      torch::nn::LayerNormOptions({layer.multihead.embed_dims}).eps(layer.norm_eps));
}

// mmdet's DETR transformer init, one layer at a time: every attention and LayerNorm anew, then
// Xavier-uniform with zero bias on every Linear (the FFNs and `attn.out_proj`, not
// `in_proj_weight`).
void reset_layer_parameters(TransformerLayerImpl& layer) {
  for (auto& module : layer.modules(/*include_self=*/false)) {
    if (auto* attention = module->as<PackedMultiheadAttention>()) attention->reset_parameters();
    if (auto* norm = module->as<torch::nn::LayerNorm>()) norm->reset_parameters();
  }
  for (auto& module : layer.modules(/*include_self=*/false)) {
    if (auto* linear = module->as<torch::nn::Linear>()) {
      torch::nn::init::xavier_uniform_(linear->weight);
      linear->bias.zero_();
    }
  }
}

}  // namespace

DetrTransformerEncoderImpl::DetrTransformerEncoderImpl(const TransformerLayerOptions& layer,
                                                       int64_t num_layers) {
  layers_ = register_module("layers", transformer_layers(layer, num_layers));
  if (layers_[0]->as<TransformerLayer>()->pre_norm()) {
    post_norm_ = register_module("post_norm", make_norm(layer));
  }
}

at::Tensor DetrTransformerEncoderImpl::forward(at::Tensor query, const at::Tensor& query_pos,
                                               const at::Tensor& key_padding_mask) {
  TransformerLayerInputs inputs;
  inputs.query_pos = query_pos;
  inputs.query_key_padding_mask = key_padding_mask;
  for (auto& layer : *layers_) {
    query = layer->as<TransformerLayer>()->forward(query, inputs);
  }
  return post_norm_ ? compat::layer_norm(query, post_norm_->weight, post_norm_->bias,
                                         post_norm_->options.eps())
                    : query;
}

DetrTransformerDecoderImpl::DetrTransformerDecoderImpl(const TransformerLayerOptions& layer,
                                                       int64_t num_layers) {
  layers_ = register_module("layers", transformer_layers(layer, num_layers));
  post_norm_ = register_module("post_norm", make_norm(layer));
}

at::Tensor DetrTransformerDecoderImpl::forward(at::Tensor query, const at::Tensor& memory,
                                               const at::Tensor& query_pos,
                                               const at::Tensor& key_pos,
                                               const at::Tensor& key_padding_mask) {
  TransformerLayerInputs inputs;
  inputs.key = memory;
  inputs.value = memory;
  inputs.query_pos = query_pos;
  inputs.key_pos = key_pos;
  inputs.key_padding_mask = key_padding_mask;
  std::vector<at::Tensor> intermediate;
  for (auto& layer : *layers_) {
    query = layer->as<TransformerLayer>()->forward(query, inputs);
    intermediate.push_back(
        compat::layer_norm(query, post_norm_->weight, post_norm_->bias, post_norm_->options.eps()));
  }
  return torch::stack(intermediate);
}

DetrTransformerImpl::DetrTransformerImpl(const DetrTransformerOptions& options) {
  encoder_ = register_module(
      "encoder", DetrTransformerEncoder(options.encoder_layer, options.num_encoder_layers));
  decoder_ = register_module(
      "decoder", DetrTransformerDecoder(options.decoder_layer, options.num_decoder_layers));
  reset_parameters();
}

void DetrTransformerImpl::set_dropout(double p) {
  for (auto& module : modules(/*include_self=*/false)) {
    if (auto* layer = module->as<TransformerLayer>()) layer->set_dropout(p);
  }
}

void DetrTransformerImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  for (auto& module : modules(/*include_self=*/false)) {
    if (auto* layer = module->as<TransformerLayer>()) reset_layer_parameters(*layer);
  }
}

std::pair<at::Tensor, at::Tensor> DetrTransformerImpl::forward(const at::Tensor& x,
                                                               const at::Tensor& mask,
                                                               const at::Tensor& query_embed,
                                                               const at::Tensor& pos) {
  const int64_t batch = x.size(0);
  const int64_t channels = x.size(1);
  const int64_t height = x.size(2);
  const int64_t width = x.size(3);
  // [B, E, H, W] -> [H*W, B, E]
  const at::Tensor tokens = x.flatten(2).permute({2, 0, 1});
  const at::Tensor token_pos = pos.flatten(2).permute({2, 0, 1});
  const at::Tensor queries_pos = query_embed.unsqueeze(1).repeat({1, batch, 1});  // [Q, B, E]
  const at::Tensor key_padding_mask = mask.reshape({batch, -1});

  const at::Tensor memory = encoder_(tokens, token_pos, key_padding_mask);
  const at::Tensor target = torch::zeros_like(queries_pos);
  const at::Tensor out_dec =
      decoder_(target, memory, queries_pos, token_pos, key_padding_mask).transpose(1, 2);
  return {out_dec, memory.permute({1, 2, 0}).reshape({batch, channels, height, width})};
}

}  // namespace olv2
