#include "olv2/models/layers/deformable_transformer_layer.h"

#include <torch/torch.h>

#include "olv2/util/compat.h"
#include "olv2/util/error.h"

namespace olv2 {

DeformableTransformerLayerImpl::DeformableTransformerLayerImpl(
    const DeformableTransformerLayerOptions& options)
    : options_(options) {
  attentions_ = register_module("attentions", torch::nn::ModuleList());
  ffns_ = register_module("ffns", torch::nn::ModuleList());
  norms_ = register_module("norms", torch::nn::ModuleList());
  size_t attention_index = 0;
  for (const std::string& operation : options.operation_order) {
    if (operation == "self_attn" || operation == "cross_attn") {
      if (attention_index >= options.attentions.size()) {
        throw input_error(
            "transformer layer: operation_order has more attentions than attn_cfgs (" +
            std::to_string(options.attentions.size()) + ")");
      }
      if (options.attentions[attention_index++] == AttentionKind::kMultihead) {
        attentions_->push_back(MultiheadAttention(options.multihead));
      } else {
        attentions_->push_back(MultiScaleDeformableAttention(options.deformable));
      }
    } else if (operation == "ffn") {
      ffns_->push_back(Ffn(options.ffn));
    } else if (operation == "norm") {
      norms_->push_back(torch::nn::LayerNorm(
          torch::nn::LayerNormOptions({options.ffn.embed_dims}).eps(options.norm_eps)));
    } else {
      throw input_error("transformer layer: unknown operation `" + operation +
                        "` in operation_order (expected self_attn, cross_attn, norm or ffn)");
    }
  }
  if (attention_index != options.attentions.size()) {
    throw input_error("transformer layer: " + std::to_string(options.attentions.size()) +
                      " attn_cfgs for " + std::to_string(attention_index) +
                      " attentions in operation_order");
  }
  if (!options.operation_order.empty() && options.operation_order.front() == "norm") {
    throw input_error("transformer layer: pre-norm operation orders are not supported here");
  }
}

void DeformableTransformerLayerImpl::set_dropout(double p) {
  for (auto& attention : *attentions_) {
    if (auto* multihead = attention->as<MultiheadAttention>()) multihead->set_dropout(p);
    if (auto* deformable = attention->as<MultiScaleDeformableAttention>())
      deformable->set_dropout(p);
  }
  for (auto& ffn : *ffns_) ffn->as<Ffn>()->set_dropout(p);
}

void DeformableTransformerLayerImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  for (auto& module : modules(/*include_self=*/false)) {
    if (auto* linear = module->as<torch::nn::Linear>()) {
      torch::nn::init::xavier_uniform_(linear->weight);
      linear->bias.zero_();
    }
    if (auto* norm = module->as<torch::nn::LayerNorm>()) norm->reset_parameters();
  }
  for (auto& attention : *attentions_) {
    if (auto* multihead = attention->as<MultiheadAttention>())
      multihead->attn()->reset_parameters();
    if (auto* deformable = attention->as<MultiScaleDeformableAttention>())
      deformable->reset_parameters();
  }
}

at::Tensor DeformableTransformerLayerImpl::forward(at::Tensor query, const at::Tensor& value,
                                                   const at::Tensor& query_pos,
                                                   const at::Tensor& query_key_padding_mask,
                                                   const at::Tensor& key_padding_mask,
                                                   const at::Tensor& reference_points,
                                                   const SpatialShapes& spatial_shapes) {
  size_t attention_index = 0, ffn_index = 0, norm_index = 0;
  const at::Tensor none;
  for (const std::string& operation : options_.operation_order) {
    if (operation == "self_attn" || operation == "cross_attn") {
      const bool self = operation == "self_attn";
      const auto& attention = attentions_[attention_index++];
      if (auto* multihead = attention->as<MultiheadAttention>()) {
        query =
            self ? multihead->forward(query, query, query, none, query_pos, query_pos, none)
                 : multihead->forward(query, value, value, none, query_pos, none, key_padding_mask);
      } else {
        query = attention->as<MultiScaleDeformableAttention>()->forward(
            query, self ? query : value, none, query_pos,
            self ? query_key_padding_mask : key_padding_mask, reference_points, spatial_shapes);
      }
    } else if (operation == "norm") {
      const auto* norm = norms_[norm_index++]->as<torch::nn::LayerNorm>();
      query = compat::layer_norm(query, norm->weight, norm->bias, norm->options.eps());
    } else {
      query = ffns_[ffn_index++]->as<Ffn>()->forward(query);
    }
  }
  return query;
}

}  // namespace olv2
