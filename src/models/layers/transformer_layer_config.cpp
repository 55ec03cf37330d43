#include "olv2/models/layers/transformer_layer_config.h"

#include "olv2/config/section_readers.h"
#include "olv2/models/layers/ffn.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema transformer_layer_schema(const std::string& type, Schema attn_cfgs) {
  Schema schema = typed_schema(type);
  schema.required("attn_cfgs", std::move(attn_cfgs))
      .optional("ffn_cfgs", FfnOptions::schema())
      .required(
          "operation_order",
          Schema::sequence(Schema::string().choices({"self_attn", "cross_attn", "norm", "ffn"})))
      .optional("feedforward_channels", Schema::integer())
      .optional("ffn_dropout", ratio_schema());
  return schema;
}

Schema attention_list_schema(std::map<std::string, Schema> variants) {
  Schema one = Schema::tagged("type", std::move(variants));
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

const ConfigNode& attention_config(const ConfigNode& layer, size_t index, const std::string& type) {
  const ConfigNode& attn_cfgs = layer.at("attn_cfgs");
  const std::vector<const ConfigNode*> attentions = maps_of(attn_cfgs);
  if (index >= attentions.size() || attentions[index]->at("type").as_string() != type) {
    throw input_error(attn_cfgs.where() + ": attention " + std::to_string(index) + " must be " +
                      type + " (the attentions of this layer are fixed by the model)");
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

DecoderLayerAttentions DecoderLayerAttentions::from_config(const ConfigNode& layer,
                                                           const std::string& deformable_type,
                                                           DecoderLayerAttentions d) {
  require_operation_order(layer, {"self_attn", "norm", "cross_attn", "norm", "ffn", "norm"});
  const ConfigNode& mha = attention_config(layer, 0, "MultiheadAttention");
  d.embed_dims = mha.at("embed_dims").as_int();
  d.num_heads = mha.at("num_heads").as_int();
  d.attention_dropout = mha.get<double>("dropout", 0.0);
  const ConfigNode& msda = attention_config(layer, 1, deformable_type);
  if (msda.get<int64_t>("num_heads", d.num_heads) != d.num_heads) {
    throw input_error(msda.where() + ": num_heads must equal the self-attention's " +
                      std::to_string(d.num_heads));
  }
  if (msda.get<int64_t>("embed_dims", d.embed_dims) != d.embed_dims) {
    throw input_error(msda.where() + ": embed_dims must equal the self-attention's " +
                      std::to_string(d.embed_dims));
  }
  d.num_levels = msda.get<int64_t>("num_levels", d.num_levels);
  d.num_points = msda.get<int64_t>("num_points", d.num_points);
  d.msda_dropout = msda.get<double>("dropout", d.msda_dropout);
  return d;
}

}  // namespace olv2
