#include "olv2/models/layers/transformer_layer_config.h"

#include "olv2/config/section_readers.h"
#include "olv2/models/layers/ffn.h"
#include "olv2/models/layers/multi_scale_deformable_attention.h"
#include "olv2/models/layers/multihead_attention.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema transformer_layer_schema(const std::string& type, Schema attn_cfgs,
                                const std::vector<std::string>& aliases) {
  Schema schema = typed_schema(type, aliases);
  schema.required("attn_cfgs", std::move(attn_cfgs))
      .optional("ffn_cfgs", FfnOptions::schema())
      .required(
          "operation_order",
          Schema::sequence(Schema::string().choices({"self_attn", "cross_attn", "norm", "ffn"})))
      .optional("feedforward_channels", Schema::integer())
      .optional("ffn_dropout", ratio_schema());
  return schema;
}

Schema attention_list_schema() {
  const Schema one = attention_registry().schema();
  return Schema::either(one, Schema::sequence(one));
}

Schema layer_sequence_schema(const std::string& type, Schema layer) {
  Schema schema = typed_schema(type);
  schema.required("num_layers", Schema::integer().range(1, 64))
      .required("transformerlayers", std::move(layer))
      .optional("return_intermediate", Schema::boolean())
      .optional("pc_range", numbers_schema())
      .optional("num_points_in_pillar", Schema::integer().range(1, 64));
  return schema;
}

const ConfigNode& attention_entry(const ConfigNode& layer, size_t index) {
  const ConfigNode& attn_cfgs = layer.at("attn_cfgs");
  const std::vector<const ConfigNode*> attentions = maps_of(attn_cfgs);
  if (index >= attentions.size()) {
    throw input_error(attn_cfgs.where() + ": this layer runs " + std::to_string(index + 1) +
                      " attentions, the config gives " + std::to_string(attentions.size()));
  }
  return *attentions[index];
}

void require_operation_order(const ConfigNode& layer, const std::vector<std::string>& expected) {
  const ConfigNode& order = layer.at("operation_order");
  if (order.as_vector<std::string>() != expected) {
    std::string text;
    for (const std::string& op : expected) text += (text.empty() ? "" : ", ") + op;
    throw input_error(order.where() + ": this layer runs exactly (" + text + ")");
  }
}

DecoderLayerAttentions DecoderLayerAttentions::from_config(const ConfigNode& layer) {
  require_operation_order(layer, {"self_attn", "norm", "cross_attn", "norm", "ffn", "norm"});
  const auto mha = layer_attention<MultiheadAttentionOptions>(layer, 0, "MultiheadAttention");
  const auto msda = layer_attention<MultiScaleDeformableAttentionOptions>(
      layer, 1, "a multi-scale deformable attention");
  const std::string where = attention_entry(layer, 1).where();
  if (msda.num_heads != mha.num_heads) {
    throw input_error(where + ": num_heads " + std::to_string(msda.num_heads) +
                      " must equal the self-attention's " + std::to_string(mha.num_heads));
  }
  if (msda.embed_dims != mha.embed_dims) {
    throw input_error(where + ": embed_dims " + std::to_string(msda.embed_dims) +
                      " must equal the self-attention's " + std::to_string(mha.embed_dims));
  }
  return {mha.embed_dims,  mha.num_heads,   mha.dropout,
          msda.num_levels, msda.num_points, msda.dropout};
}

}  // namespace olv2
