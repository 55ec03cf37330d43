#include "olv2/models/layers/transformer_layer.h"

#include <torch/torch.h>

#include <algorithm>

#include "olv2/util/compat.h"
#include "olv2/util/error.h"

namespace olv2 {

TransformerLayerImpl::TransformerLayerImpl(const TransformerLayerOptions& options)
    : options_(options),
      pre_norm_(!options.operation_order.empty() && options.operation_order.front() == "norm") {
  attentions_ = register_module("attentions", torch::nn::ModuleList());
  ffns_ = register_module("ffns", torch::nn::ModuleList());
  norms_ = register_module("norms", torch::nn::ModuleList());
  for (const std::string& operation : options.operation_order) {
    if (operation == "self_attn" || operation == "cross_attn") {
      attentions_->push_back(MultiheadAttention(options.attention));
    } else if (operation == "ffn") {
      ffns_->push_back(Ffn(options.ffn));
    } else if (operation == "norm") {
      norms_->push_back(torch::nn::LayerNorm(
          torch::nn::LayerNormOptions({options.attention.embed_dims}).eps(options.norm_eps)));
    } else {
      throw input_error("transformer layer: unknown operation `" + operation +
                        "` in operation_order (expected self_attn, cross_attn, norm or ffn)");
    }
  }
}

void TransformerLayerImpl::set_dropout(double p) {
  for (auto& attention : *attentions_) attention->as<MultiheadAttention>()->set_dropout(p);
  for (auto& ffn : *ffns_) ffn->as<Ffn>()->set_dropout(p);
}

void TransformerLayerImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  for (auto& module : modules(/*include_self=*/false)) {
    if (auto* attention = module->as<PackedMultiheadAttention>()) attention->reset_parameters();
    if (auto* norm = module->as<torch::nn::LayerNorm>()) norm->reset_parameters();
  }
  // mmdet's Xavier pass covers every Linear (FFNs and `attn.out_proj`), not `in_proj_weight`.
  for (auto& module : modules(/*include_self=*/false)) {
    if (auto* linear = module->as<torch::nn::Linear>()) {
      torch::nn::init::xavier_uniform_(linear->weight);
      linear->bias.zero_();
    }
  }
}

at::Tensor TransformerLayerImpl::forward(at::Tensor query, const at::Tensor& key,
                                         const at::Tensor& value, const at::Tensor& query_pos,
                                         const at::Tensor& key_pos,
                                         const at::Tensor& query_key_padding_mask,
                                         const at::Tensor& key_padding_mask) {
  size_t attn_index = 0;
  size_t ffn_index = 0;
  size_t norm_index = 0;
  at::Tensor identity = query;
  const at::Tensor none;
  for (const std::string& operation : options_.operation_order) {
    if (operation == "self_attn") {
      query = attentions_[attn_index++]->as<MultiheadAttention>()->forward(
          query, query, query, pre_norm_ ? identity : none, query_pos, query_pos,
          query_key_padding_mask);
      identity = query;
    } else if (operation == "cross_attn") {
      query = attentions_[attn_index++]->as<MultiheadAttention>()->forward(
          query, key, value, pre_norm_ ? identity : none, query_pos, key_pos, key_padding_mask);
      identity = query;
    } else if (operation == "norm") {
      const auto* norm = norms_[norm_index++]->as<torch::nn::LayerNorm>();
      query = compat::layer_norm(query, norm->weight, norm->bias, norm->options.eps());
    } else {
      query = ffns_[ffn_index++]->as<Ffn>()->forward(query, pre_norm_ ? identity : none);
    }
  }
  return query;
}

}  // namespace olv2
