#include "olv2/models/layers/transformer_layer.h"

#include <torch/torch.h>

#include "olv2/util/compat.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

int64_t norm_width(const TransformerLayerOptions& options) {
  if (options.attentions.empty()) {
    throw input_error("transformer layer: it needs at least one attention");
  }
  return options.attentions.front() == AttentionKind::kMultihead ? options.multihead.embed_dims
                                                                 : options.deformable.embed_dims;
}

}  // namespace

TransformerLayerImpl::TransformerLayerImpl(const TransformerLayerOptions& options)
    : options_(options),
      pre_norm_(!options.operation_order.empty() && options.operation_order.front() == "norm") {
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
      if (options.scene_graph_ffn) {
        ffns_->push_back(SceneGraphFfn(*options.scene_graph_ffn));
      } else {
        ffns_->push_back(Ffn(options.ffn));
      }
    } else if (operation == "norm") {
      norms_->push_back(torch::nn::LayerNorm(
          torch::nn::LayerNormOptions({norm_width(options)}).eps(options.norm_eps)));
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
}

void TransformerLayerImpl::set_dropout(double p) {
  for (auto& attention : *attentions_) {
    if (auto* multihead = attention->as<MultiheadAttention>()) multihead->set_dropout(p);
    if (auto* deformable = attention->as<MultiScaleDeformableAttention>()) {
      deformable->set_dropout(p);
    }
  }
  for (auto& ffn : *ffns_) {
    if (auto* plain = ffn->as<Ffn>()) plain->set_dropout(p);
    if (auto* graph = ffn->as<SceneGraphFfn>()) graph->set_dropout(p);
  }
}

TransformerLayerOptions bev_decoder_layer(
    const MultiheadAttentionOptions& self_attention,
    const MultiScaleDeformableAttentionOptions& cross_attention) {
  TransformerLayerOptions layer;
  layer.attentions = {AttentionKind::kMultihead, AttentionKind::kDeformable};
  layer.multihead = self_attention;
  layer.deformable = cross_attention;
  layer.deformable.batch_first = false;
  layer.operation_order = {"self_attn", "norm", "cross_attn", "norm", "ffn", "norm"};
  return layer;
}

void require_bev_decoder_layer(const std::string& transformer, int64_t embed_dims,
                               const TransformerLayerOptions& layer) {
  const auto require_width = [&](const char* what, int64_t value) {
    if (value != embed_dims) {
      throw input_error(transformer + ": " + what + " " + std::to_string(value) +
                        " differs from embed_dims " + std::to_string(embed_dims));
    }
  };
  require_width("the self-attention's embed_dims", layer.multihead.embed_dims);
  require_width("the cross-attention's embed_dims", layer.deformable.embed_dims);
  require_width("the FFN's embed_dims",
                layer.scene_graph_ffn ? layer.scene_graph_ffn->embed_dims : layer.ffn.embed_dims);
  if (layer.deformable.num_levels != 1) {
    throw input_error(transformer +
                      ": the decoder samples the BEV, one level (num_levels: 1), got " +
                      std::to_string(layer.deformable.num_levels));
  }
}

torch::nn::ModuleList transformer_layers(const TransformerLayerOptions& layer, int64_t num_layers) {
  torch::nn::ModuleList layers;
  for (int64_t i = 0; i < num_layers; ++i) layers->push_back(TransformerLayer(layer));
  return layers;
}

at::Tensor TransformerLayerImpl::forward(at::Tensor query, const TransformerLayerInputs& in) {
  size_t attention_index = 0, ffn_index = 0, norm_index = 0;
  at::Tensor identity = query;
  const at::Tensor none;
  for (const std::string& operation : options_.operation_order) {
    if (operation == "self_attn" || operation == "cross_attn") {
      const bool self = operation == "self_attn";
      const at::Tensor& residual = pre_norm_ ? identity : none;
      const auto& attention = attentions_[attention_index++];
      if (auto* multihead = attention->as<MultiheadAttention>()) {
        query = self ? multihead->forward(query, query, query, residual, in.query_pos, in.query_pos,
                                          in.query_key_padding_mask)
                     : multihead->forward(query, in.key, in.value, residual, in.query_pos,
                                          in.key_pos, in.key_padding_mask);
      } else {
        if (in.spatial_shapes == nullptr) {
          throw runtime_error("transformer layer: a deformable attention needs spatial_shapes");
        }
        query = attention->as<MultiScaleDeformableAttention>()->forward(
            query, self ? query : in.value, residual, in.query_pos,
            self ? in.query_key_padding_mask : in.key_padding_mask, in.reference_points,
            *in.spatial_shapes);
      }
      identity = query;
    } else if (operation == "norm") {
      const auto* norm = norms_[norm_index++]->as<torch::nn::LayerNorm>();
      query = compat::layer_norm(query, norm->weight, norm->bias, norm->options.eps());
    } else {
      const auto& ffn = ffns_[ffn_index++];
      const at::Tensor& residual = pre_norm_ ? identity : none;
      if (auto* graph = ffn->as<SceneGraphFfn>()) {
        if (in.scene_graph == nullptr) {
          throw runtime_error("transformer layer: an FFN_SGNN needs the scene-graph inputs");
        }
        query = graph->forward(query, *in.scene_graph, residual);
      } else {
        query = ffn->as<Ffn>()->forward(query, residual);
      }
    }
  }
  return query;
}

}  // namespace olv2
