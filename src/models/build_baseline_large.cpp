#include <torch/torch.h>

#include "olv2/config/schema.h"
#include "olv2/models/build.h"
#include "olv2/models/build_parts.h"
#include "olv2/models/model_schema.h"

namespace olv2 {
namespace {

// A value the original allows in several forms as a list: `attn_cfgs` and `ffn_cfgs` are a
// dict or a list of dicts.
std::vector<const ConfigNode*> entries_of(const ConfigNode& node) {
  std::vector<const ConfigNode*> out;
  if (node.is_map()) {
    out.push_back(&node);
  } else {
    for (const ConfigNode& element : node.elements()) out.push_back(&element);
  }
  return out;
}

const ConfigNode& attention_at(const ConfigNode& layer, size_t index, const std::string& type) {
  const ConfigNode& attn_cfgs = layer.at("attn_cfgs");
  const std::vector<const ConfigNode*> attentions = entries_of(attn_cfgs);
  if (index >= attentions.size() || attentions[index]->at("type").as_string() != type) {
    throw input_error(attn_cfgs.where() + ": attention " + std::to_string(index) + " must be " +
                      type + " (the attentions of this layer are fixed by the model)");
  }
  return *attentions[index];
}

void require_order(const ConfigNode& layer, const std::vector<std::string>& expected) {
  const ConfigNode& order = layer.at("operation_order");
  if (order.as_vector<std::string>() != expected) {
    std::string text;
    for (const std::string& op : expected) text += (text.empty() ? "" : ", ") + op;
    throw input_error(order.where() + ": this layer runs exactly (" + text + ")");
  }
}

void require_flag(const ConfigNode& cfg, const std::string& key, bool supported,
                  const std::string& why) {
  const ConfigNode* node = cfg.find(key);
  if (node != nullptr && !node->is_null() && node->as_bool() != supported) {
    throw input_error(node->where() + ": only " + key + ": " + (supported ? "true" : "false") +
                      " is supported (" + why + ")");
  }
}

// mmcv `FFN` of a layer, including BaseTransformerLayer's deprecated layer-level keys.
FfnOptions ffn_from_config(const ConfigNode& layer, FfnOptions o) {
  if (const ConfigNode* cfgs = layer.find("ffn_cfgs"); cfgs != nullptr && !cfgs->is_null()) {
    const std::vector<const ConfigNode*> ffns = entries_of(*cfgs);
    if (ffns.size() != 1) throw input_error(cfgs->where() + ": expected one FFN config");
    const ConfigNode& ffn = *ffns[0];
    o.embed_dims = ffn.get<int64_t>("embed_dims", o.embed_dims);
    o.feedforward_channels = ffn.get<int64_t>("feedforward_channels", o.feedforward_channels);
    o.num_fcs = ffn.get<int64_t>("num_fcs", o.num_fcs);
    o.ffn_drop = ffn.get<double>("ffn_drop", o.ffn_drop);
    o.add_identity = ffn.get<bool>("add_identity", o.add_identity);
  }
  o.feedforward_channels = layer.get<int64_t>("feedforward_channels", o.feedforward_channels);
  o.ffn_drop = layer.get<double>("ffn_dropout", o.ffn_drop);
  return o;
}

FpnOptions mmdet_fpn_from_config(const ConfigNode& cfg) {
  FpnOptions o;
  o.in_channels = cfg.at("in_channels").as_vector<int64_t>();
  o.out_channels = cfg.at("out_channels").as_int();
  o.num_outs = cfg.at("num_outs").as_int();
  o.start_level = cfg.get<int64_t>("start_level", 0);
  o.end_level = cfg.get<int64_t>("end_level", -1);
  o.add_extra_convs = add_extra_convs_from_config(cfg);
  o.relu_before_extra_convs = cfg.get<bool>("relu_before_extra_convs", false);
  return o;
}

BevFormerConstructerOptions bev_from_config(const ConfigNode& cfg) {
  BevFormerConstructerOptions o;
  o.embed_dims = cfg.get<int64_t>("embed_dims", o.embed_dims);
  o.num_feature_levels = cfg.get<int64_t>("num_feature_levels", o.num_feature_levels);
  o.num_cams = cfg.get<int64_t>("num_cams", o.num_cams);
  o.bev_h = cfg.at("bev_h").as_int();
  o.bev_w = cfg.at("bev_w").as_int();
  o.use_can_bus = cfg.get<bool>("use_can_bus", o.use_can_bus);
  o.can_bus_norm = cfg.get<bool>("can_bus_norm", o.can_bus_norm);
  o.use_cams_embeds = cfg.get<bool>("use_cams_embeds", o.use_cams_embeds);

  const ConfigNode& encoder = cfg.at("encoder");
  require_flag(encoder, "return_intermediate", false, "the constructor returns the last layer");
  o.encoder.num_layers = encoder.at("num_layers").as_int();
  o.encoder.num_points_in_pillar =
      encoder.get<int64_t>("num_points_in_pillar", o.encoder.num_points_in_pillar);
  if (const ConfigNode* range = encoder.find("pc_range"))
    o.encoder.pc_range = fixed_numbers<6>(*range);

  const ConfigNode& layer = encoder.at("transformerlayers");
  require_order(layer, {"self_attn", "norm", "cross_attn", "norm", "ffn", "norm"});
  const ConfigNode& tsa = attention_at(layer, 0, "TemporalSelfAttention");
  TemporalSelfAttentionOptions& self = o.encoder.layer.self_attention;
  self.embed_dims = tsa.get<int64_t>("embed_dims", self.embed_dims);
  self.num_heads = tsa.get<int64_t>("num_heads", self.num_heads);
  self.num_levels = tsa.get<int64_t>("num_levels", self.num_levels);
  self.num_points = tsa.get<int64_t>("num_points", self.num_points);
  self.num_bev_queue = tsa.get<int64_t>("num_bev_queue", self.num_bev_queue);
  self.dropout = tsa.get<double>("dropout", self.dropout);

  const ConfigNode& sca = attention_at(layer, 1, "SpatialCrossAttention");
  SpatialCrossAttentionOptions& cross = o.encoder.layer.cross_attention;
  cross.embed_dims = sca.get<int64_t>("embed_dims", cross.embed_dims);
  cross.num_cams = sca.get<int64_t>("num_cams", cross.num_cams);
  cross.dropout = sca.get<double>("dropout", cross.dropout);
  if (const ConfigNode* msda = sca.find("deformable_attention")) {
    MsDeformableAttention3dOptions& d = cross.deformable_attention;
    d.embed_dims = msda->get<int64_t>("embed_dims", d.embed_dims);
    d.num_heads = msda->get<int64_t>("num_heads", d.num_heads);
    d.num_levels = msda->get<int64_t>("num_levels", d.num_levels);
    d.num_points = msda->get<int64_t>("num_points", d.num_points);
  }
  o.encoder.layer.ffn = ffn_from_config(layer, o.encoder.layer.ffn);

  const ConfigNode& positional = cfg.at("positional_encoding");
  o.positional_encoding.num_feats = positional.at("num_feats").as_int();
  o.positional_encoding.row_num_embed = positional.at("row_num_embed").as_int();
  o.positional_encoding.col_num_embed = positional.at("col_num_embed").as_int();
  return o;
}

// The multi-head and deformable attentions of a decoder layer, which the heads configure with
// one head count and dropout each.
struct DecoderAttentions {
  int64_t embed_dims;
  int64_t num_heads;
  double attention_dropout;
  int64_t num_levels;
  int64_t num_points;
  double msda_dropout;
};

DecoderAttentions decoder_attentions(const ConfigNode& layer, const std::string& deformable_type,
                                     DecoderAttentions d) {
  require_order(layer, {"self_attn", "norm", "cross_attn", "norm", "ffn", "norm"});
  const ConfigNode& mha = attention_at(layer, 0, "MultiheadAttention");
  d.embed_dims = mha.at("embed_dims").as_int();
  d.num_heads = mha.at("num_heads").as_int();
  d.attention_dropout = mha.get<double>("dropout", 0.0);
  const ConfigNode& msda = attention_at(layer, 1, deformable_type);
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

TeDeformableDetrHeadOptions te_head_from_config(const ConfigNode& cfg,
                                                const ConfigNode& train_cfg) {
  TeDeformableDetrHeadOptions o;
  o.num_query = cfg.at("num_query").as_int();
  o.num_classes = cfg.at("num_classes").as_int();
  o.in_channels = cfg.at("in_channels").as_int();
  o.num_reg_fcs = cfg.get<int64_t>("num_reg_fcs", o.num_reg_fcs);
  o.sync_cls_avg_factor = cfg.get<bool>("sync_cls_avg_factor", false);
  o.with_box_refine = cfg.get<bool>("with_box_refine", false);
  require_flag(cfg, "as_two_stage", false, "the original's configs never use two stages");

  const ConfigNode& transformer = cfg.at("transformer");
  o.num_feature_levels = transformer.get<int64_t>("num_feature_levels", o.num_feature_levels);
  const ConfigNode& encoder = transformer.at("encoder");
  o.num_encoder_layers = encoder.at("num_layers").as_int();
  const ConfigNode& encoder_layer = encoder.at("transformerlayers");
  require_order(encoder_layer, {"self_attn", "norm", "ffn", "norm"});
  const ConfigNode& encoder_msda = attention_at(encoder_layer, 0, "MultiScaleDeformableAttention");

  const ConfigNode& decoder = transformer.at("decoder");
  require_flag(decoder, "return_intermediate", true, "every decoder layer has its loss");
  o.num_decoder_layers = decoder.at("num_layers").as_int();
  const ConfigNode& decoder_layer = decoder.at("transformerlayers");
  const DecoderAttentions d =
      decoder_attentions(decoder_layer, "MultiScaleDeformableAttention",
                         {o.embed_dims, o.num_heads, o.attention_dropout, o.num_feature_levels,
                          o.num_points, o.msda_dropout});
  o.embed_dims = d.embed_dims;
  o.num_heads = d.num_heads;
  o.attention_dropout = d.attention_dropout;
  o.num_points = d.num_points;
  o.msda_dropout = d.msda_dropout;
  for (const ConfigNode* msda :
       {&encoder_msda, &attention_at(decoder_layer, 1, "MultiScaleDeformableAttention")}) {
    if (msda->get<int64_t>("num_levels", o.num_feature_levels) != o.num_feature_levels ||
        msda->get<int64_t>("num_points", o.num_points) != o.num_points ||
        msda->get<int64_t>("num_heads", o.num_heads) != o.num_heads ||
        msda->get<double>("dropout", o.msda_dropout) != o.msda_dropout) {
      throw input_error(msda->where() +
                        ": the encoder's and decoder's deformable attentions must agree on "
                        "num_levels (= transformer.num_feature_levels), num_points, num_heads "
                        "and dropout");
    }
  }
  const FfnOptions ffn = ffn_from_config(
      decoder_layer, FfnOptions{o.embed_dims, o.feedforward_channels, 2, o.ffn_drop});
  const FfnOptions encoder_ffn = ffn_from_config(encoder_layer, ffn);
  if (encoder_ffn.feedforward_channels != ffn.feedforward_channels ||
      encoder_ffn.ffn_drop != ffn.ffn_drop || ffn.num_fcs != 2) {
    throw input_error(encoder_layer.where() +
                      ": the encoder's and decoder's FFNs must agree (two layers)");
  }
  o.feedforward_channels = ffn.feedforward_channels;
  o.ffn_drop = ffn.ffn_drop;

  const ConfigNode& positional = cfg.at("positional_encoding");
  SinePositionalEncodingOptions& pe = o.positional_encoding;
  pe.num_feats = positional.at("num_feats").as_int();
  pe.temperature = positional.get<double>("temperature", 10000.0);
  pe.normalize = positional.get<bool>("normalize", false);
  pe.scale = positional.get<double>("scale", pe.scale);
  pe.eps = positional.get<double>("eps", pe.eps);
  pe.offset = positional.get<double>("offset", 0.0);

  o.loss_cls = focal_from_config(cfg.find("loss_cls"), FocalLossOptions{});
  o.loss_bbox_weight = weight_of(cfg, "loss_bbox", "loss_weight", 1.0);
  o.loss_iou_weight = weight_of(cfg, "loss_iou", "loss_weight", 1.0);

  o.assigner = box_assigner_from_config(train_cfg.at("assigner"));
  return o;
}

LcDeformableDetrHeadOptions lc_head_from_config(const ConfigNode& cfg,
                                                const ConfigNode& train_cfg) {
  LcDeformableDetrHeadOptions o;
  o.num_query = cfg.at("num_query").as_int();
  o.num_classes = cfg.at("num_classes").as_int();
  o.in_channels = cfg.at("in_channels").as_int();
  o.bev_h = cfg.at("bev_h").as_int();
  o.bev_w = cfg.at("bev_w").as_int();
  o.num_reg_fcs = cfg.get<int64_t>("num_reg_fcs", o.num_reg_fcs);
  o.sync_cls_avg_factor = cfg.get<bool>("sync_cls_avg_factor", false);
  require_flag(cfg, "with_box_refine", false, "the lane decoder has no reference refinement");
  require_flag(cfg, "with_shared_param", false, "every decoder layer has its own branches");
  require_flag(cfg, "as_two_stage", false, "the original's configs never use two stages");
  o.code_size = cfg.at("code_size").as_int();
  o.code_weights = cfg.find("code_weights") != nullptr
                       ? cfg.at("code_weights").as_vector<double>()
                       : std::vector<double>(static_cast<size_t>(o.code_size), 1.0);
  if (static_cast<int64_t>(o.code_weights.size()) != o.code_size || o.code_size % 3 != 0) {
    throw input_error(cfg.at("code_size").where() +
                      ": code_size must be a multiple of 3 with one code weight each");
  }
  o.pc_range = fixed_numbers<6>(cfg.at("pc_range"));

  const ConfigNode& transformer = cfg.at("transformer");
  const ConfigNode& decoder = transformer.at("decoder");
  require_flag(decoder, "return_intermediate", true, "every decoder layer has its loss");
  o.num_decoder_layers = decoder.at("num_layers").as_int();
  const ConfigNode& layer = decoder.at("transformerlayers");
  const DecoderAttentions d = decoder_attentions(
      layer, "CustomMSDeformableAttention",
      {o.embed_dims, o.num_heads, o.attention_dropout, o.num_levels, o.num_points, o.msda_dropout});
  o.embed_dims = transformer.get<int64_t>("embed_dims", d.embed_dims);
  o.num_heads = d.num_heads;
  o.attention_dropout = d.attention_dropout;
  o.num_levels = d.num_levels;
  o.num_points = d.num_points;
  o.msda_dropout = d.msda_dropout;
  if (o.num_levels != 1) {
    throw input_error(layer.at("attn_cfgs").where() +
                      ": the lane decoder samples the BEV, one level (num_levels: 1)");
  }
  const FfnOptions ffn =
      ffn_from_config(layer, FfnOptions{o.embed_dims, o.feedforward_channels, 2, o.ffn_drop});
  if (ffn.num_fcs != 2) throw input_error(layer.where() + ": the FFN must have two layers");
  o.feedforward_channels = ffn.feedforward_channels;
  o.ffn_drop = ffn.ffn_drop;

  o.loss_cls = focal_from_config(cfg.find("loss_cls"), FocalLossOptions{});
  o.loss_bbox_weight = weight_of(cfg, "loss_bbox", "loss_weight", 1.0);

  o.assigner = lane_assigner_from_config(train_cfg.at("assigner"));
  return o;
}

RelationshipHeadOptions relationship_from_config(const ConfigNode& cfg) {
  RelationshipHeadOptions o;
  o.in_channels_o1 = cfg.at("in_channels_o1").as_int();
  o.in_channels_o2 = cfg.get<int64_t>("in_channels_o2", o.in_channels_o1);
  o.shared_param = cfg.get<bool>("shared_param", true);
  o.loss_rel = focal_from_config(cfg.find("loss_rel"), FocalLossOptions{});
  return o;
}

}  // namespace

BaselineLargeOptions baseline_large_options_from_config(const ConfigNode& model) {
  validate_config(model, model_schema());
  if (model.at("type").as_string() != "BaselineLarge") {
    throw input_error(model.at("type").where() + ": expected type BaselineLarge");
  }
  BaselineLargeOptions o;
  o.img_backbone = resnet_from_config(model.at("img_backbone"));
  o.img_neck = mmdet_fpn_from_config(model.at("img_neck"));
  o.bev_constructor = bev_from_config(model.at("bev_constructor"));
  o.bbox_head = te_head_from_config(model.at("bbox_head"), model.at("bbox_train_cfg"));
  o.pts_bbox_head = lc_head_from_config(model.at("pts_bbox_head"), model.at("train_cfg").at("pts"));
  o.lclc_head = relationship_from_config(model.at("lclc_head"));
  o.lcte_head = relationship_from_config(model.at("lcte_head"));
  if (const ConfigNode* stages = model.find("checkpoint")) {
    o.checkpoint = stages->as_vector<std::string>();
  }
  return o;
}

std::shared_ptr<DetectorImpl> build_baseline_large(const ConfigNode& model) {
  auto detector = std::make_shared<BaselineLargeImpl>(baseline_large_options_from_config(model));
  const ConfigNode* init_cfg = model.at("img_backbone").find("init_cfg");
  if (init_cfg != nullptr && !init_cfg->is_null()) {
    load_pretrained_backbone(*detector->img_backbone(), *init_cfg);
  }
  return detector;
}

}  // namespace olv2
