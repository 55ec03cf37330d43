#pragma once
// The config of mmcv's transformer layers and layer sequences, shared by the BEV encoder and the
// heads.
#include <cstdint>
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/models/attention_registry.h"

namespace olv2 {

// The config of mmcv's transformer layers and layer sequences (`attn_cfgs`, `ffn_cfgs`,
// `operation_order`, `transformerlayers`, `num_layers`), shared by the BEV encoder and the
// heads' encoders and decoders. Each model fixes the attentions and order its layers run.

// A layer of `type` (or one of its `aliases`) with its attentions (`attn_cfgs`: one dict or a
// list) and FFN.
Schema transformer_layer_schema(const std::string& type, Schema attn_cfgs,
                                const std::vector<std::string>& aliases = {});
// `attn_cfgs`: one attention of any registered type (attention_registry.h), or a list of them.
Schema attention_list_schema();
// A sequence of `type`: num_layers copies of `layer`, plus the keys the BEV encoder adds.
Schema layer_sequence_schema(const std::string& type, Schema layer);

// The entry at `index` of the layer's `attn_cfgs`; an input error when there is none.
const ConfigNode& attention_entry(const ConfigNode& layer, size_t index);
// That entry read as the attention the layer runs there (`Options`, named `runs`), in the
// registry `scope`.
template <typename Options>
Options layer_attention(const ConfigNode& layer, size_t index, const std::string& runs,
                        const std::string& scope = "") {
  return read_attention<Options>(attention_entry(layer, index), runs, scope);
}
// An input error unless the layer's `operation_order` is exactly `expected`.
void require_operation_order(const ConfigNode& layer, const std::vector<std::string>& expected);

// The multi-head self-attention and deformable cross-attention of a DETR decoder layer
// (self_attn, norm, cross_attn, norm, ffn, norm), which the heads configure with one head count
// and one width.
struct DecoderLayerAttentions {
  int64_t embed_dims;
  int64_t num_heads;
  double attention_dropout;
  int64_t num_levels;
  int64_t num_points;
  double msda_dropout;

  // The layer's attentions, each with its type's defaults: a MultiheadAttention, then a
  // multi-scale deformable attention that agrees with it on num_heads and embed_dims.
  static DecoderLayerAttentions from_config(const ConfigNode& layer);
};

}  // namespace olv2
