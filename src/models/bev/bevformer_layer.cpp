#include "olv2/models/bev/bevformer_layer.h"

#include <torch/torch.h>

#include "olv2/models/layers/transformer_layer_config.h"
#include "olv2/util/compat.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema BevFormerLayerOptions::schema() {
  return transformer_layer_schema("BEVFormerLayer", attention_list_schema());
}

BevFormerLayerOptions BevFormerLayerOptions::from_config(const ConfigNode& section,
                                                         const std::string& scope) {
  BevFormerLayerOptions o;
  require_operation_order(section, {"self_attn", "norm", "cross_attn", "norm", "ffn", "norm"});
  o.self_attention =
      layer_attention<TemporalSelfAttentionOptions>(section, 0, "TemporalSelfAttention", scope);
  o.cross_attention =
      layer_attention<SpatialCrossAttentionOptions>(section, 1, "SpatialCrossAttention", scope);
  o.ffn = FfnOptions::from_layer_config(section, o.ffn);
  return o;
}

BevFormerLayerImpl::BevFormerLayerImpl(const BevFormerLayerOptions& options) : options_(options) {
  const int64_t dims = options.self_attention.embed_dims;
  if (options.cross_attention.embed_dims != dims || options.ffn.embed_dims != dims) {
    throw input_error("BEVFormerLayer: the attentions and the FFN must share embed_dims (" +
                      std::to_string(dims) + ", " +
                      std::to_string(options.cross_attention.embed_dims) + ", " +
                      std::to_string(options.ffn.embed_dims) + ")");
  }
  self_attention_ = TemporalSelfAttention(options.self_attention);
  cross_attention_ = SpatialCrossAttention(options.cross_attention);
  ffn_ = Ffn(options.ffn);
  attentions_ =
      register_module("attentions", torch::nn::ModuleList(self_attention_, cross_attention_));
  ffns_ = register_module("ffns", torch::nn::ModuleList(ffn_));
  norms_ = register_module("norms", torch::nn::ModuleList());
  for (int i = 0; i < 3; ++i) {
    norm_layers_.emplace_back(torch::nn::LayerNormOptions({dims}).eps(options.norm_eps));
    norms_->push_back(norm_layers_.back());
  }
}

void BevFormerLayerImpl::set_dropout(double p) {
  self_attention_->set_dropout(p);
  cross_attention_->set_dropout(p);
  ffn_->set_dropout(p);
}

at::Tensor BevFormerLayerImpl::norm(size_t index, const at::Tensor& x) const {
  const torch::nn::LayerNorm& layer = norm_layers_[index];
  return compat::layer_norm(x, layer->weight, layer->bias, layer->options.eps());
}

at::Tensor BevFormerLayerImpl::forward(const at::Tensor& query,
                                       const BevFormerLayerInputs& inputs) {
  at::Tensor x =
      self_attention_->forward(query, inputs.bev_pos, inputs.hybrid_ref_2d, inputs.bev_shape);
  x = norm(0, x);
  x = cross_attention_->forward(x, inputs.tokens, inputs.camera_points, inputs.spatial_shapes);
  x = norm(1, x);
  return norm(2, ffn_->forward(x));
}

}  // namespace olv2
