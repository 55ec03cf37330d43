#include "olv2/models/layers/multihead_attention.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"

namespace olv2 {

Schema MultiheadAttentionOptions::schema() {
  Schema schema = typed_schema("MultiheadAttention");
  schema.required("embed_dims", Schema::integer())
      .required("num_heads", Schema::integer())
      .optional("dropout", ratio_schema())
      .optional("batch_first", Schema::boolean());
  return schema;
}

MultiheadAttentionOptions MultiheadAttentionOptions::from_config(const ConfigNode& section) {
  MultiheadAttentionOptions o;
  o.embed_dims = section.at("embed_dims").as_int();
  o.num_heads = section.at("num_heads").as_int();
  o.dropout = section.get<double>("dropout", 0.0);
  return o;
}

MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& options)
    : options_(options) {
  attn_ = register_module(
      "attn", PackedMultiheadAttention(options.embed_dims, options.num_heads, options.dropout));
  dropout_layer_ = register_module("dropout_layer", torch::nn::Dropout(options.dropout));
}

void MultiheadAttentionImpl::set_dropout(double p) {
  options_.dropout = p;
  attn_->set_attn_drop(p);
  dropout_layer_->options.p(p);
}

at::Tensor MultiheadAttentionImpl::forward(const at::Tensor& query, const at::Tensor& key,
                                           const at::Tensor& value, const at::Tensor& identity,
                                           const at::Tensor& query_pos, const at::Tensor& key_pos,
                                           const at::Tensor& key_padding_mask) {
  const at::Tensor k_in = key.defined() ? key : query;
  const at::Tensor v_in = value.defined() ? value : k_in;
  const at::Tensor residual = identity.defined() ? identity : query;
  at::Tensor k_pos = key_pos;
  if (!k_pos.defined() && query_pos.defined() && query_pos.sizes() == k_in.sizes()) {
    k_pos = query_pos;
  }
  const at::Tensor q = query_pos.defined() ? query + query_pos : query;
  const at::Tensor k = k_pos.defined() ? k_in + k_pos : k_in;
  return residual + dropout_layer_(attn_(q, k, v_in, key_padding_mask));
}

}  // namespace olv2
