#include "olv2/models/baseline_large_schema.h"

#include "olv2/models/schema_parts.h"

namespace olv2 {
namespace {

Schema ratio() { return Schema::number().range(0, 1); }

Schema fpn() {
  Schema schema = typed_schema("FPN");
  schema.required("in_channels", integers_schema())
      .required("out_channels", Schema::integer())
      .required("num_outs", Schema::integer())
      .optional("start_level", Schema::integer())
      .optional("end_level", Schema::integer())
      .optional("add_extra_convs",
                Schema::either(Schema::boolean(),
                               Schema::string().choices({"on_input", "on_lateral", "on_output"})))
      .optional("relu_before_extra_convs", Schema::boolean());
  return schema;
}

// mmcv `FFN`; the original's configs give it as a dict or as a one-element tuple of one.
Schema ffn() {
  Schema act = typed_schema("ReLU");
  act.optional("inplace", Schema::boolean());
  Schema schema = typed_schema("FFN");
  schema.optional("embed_dims", Schema::integer())
      .optional("feedforward_channels", Schema::integer())
      .optional("num_fcs", Schema::integer().range(2, 16))
      .optional("ffn_drop", ratio())
      .optional("act_cfg", act)
      .optional("add_identity", Schema::boolean());
  return Schema::either(schema, Schema::sequence(schema));
}

Schema deformable_attention(const std::string& type) {
  Schema schema = typed_schema(type);
  schema.optional("embed_dims", Schema::integer())
      .optional("num_heads", Schema::integer())
      .optional("num_levels", Schema::integer())
      .optional("num_points", Schema::integer())
      .optional("im2col_step", Schema::integer())
      .optional("dropout", ratio())
      .optional("batch_first", Schema::boolean());
  return schema;
}

Schema multihead_attention() {
  Schema schema = typed_schema("MultiheadAttention");
  schema.required("embed_dims", Schema::integer())
      .required("num_heads", Schema::integer())
      .optional("dropout", ratio())
      .optional("batch_first", Schema::boolean());
  return schema;
}

Schema operation_order() {
  return Schema::sequence(Schema::string().choices({"self_attn", "cross_attn", "norm", "ffn"}));
}

Schema transformer_layer(const std::string& type, Schema attn_cfgs) {
  Schema schema = typed_schema(type);
  schema.required("attn_cfgs", attn_cfgs)
      .optional("ffn_cfgs", ffn())
      .required("operation_order", operation_order())
      .optional("feedforward_channels", Schema::integer())
      .optional("ffn_dropout", ratio());
  return schema;
}

Schema attention_list(std::map<std::string, Schema> variants) {
  Schema one = Schema::tagged("type", std::move(variants));
  return Schema::either(one, Schema::sequence(one));
}

Schema layer_sequence(const std::string& type, Schema layer) {
  Schema schema = typed_schema(type);
  schema.required("num_layers", Schema::integer().range(1, 64))
      .required("transformerlayers", std::move(layer))
      .optional("return_intermediate", Schema::boolean())
      .optional("pc_range", numbers_schema())
      .optional("num_points_in_pillar", Schema::integer().range(1, 64));
  return schema;
}

Schema bev_constructor() {
  Schema tsa = deformable_attention("TemporalSelfAttention");
  tsa.optional("num_bev_queue", Schema::integer());
  Schema sca = typed_schema("SpatialCrossAttention");
  sca.optional("embed_dims", Schema::integer())
      .optional("num_cams", Schema::integer())
      .optional("pc_range", numbers_schema())
      .optional("dropout", ratio())
      .optional("batch_first", Schema::boolean())
      .optional("deformable_attention", deformable_attention("MSDeformableAttention3D"));
  Schema layer = transformer_layer(
      "BEVFormerLayer",
      attention_list({{"TemporalSelfAttention", tsa}, {"SpatialCrossAttention", sca}}));
  Schema positional = typed_schema("LearnedPositionalEncoding");
  positional.required("num_feats", Schema::integer())
      .required("row_num_embed", Schema::integer())
      .required("col_num_embed", Schema::integer());
  Schema schema = typed_schema("BEVFormerConstructer");
  schema.optional("num_feature_levels", Schema::integer())
      .optional("num_cams", Schema::integer())
      .optional("embed_dims", Schema::integer())
      .optional("rotate_prev_bev", Schema::boolean())
      .optional("use_shift", Schema::boolean())
      .optional("use_can_bus", Schema::boolean())
      .optional("can_bus_norm", Schema::boolean())
      .optional("use_cams_embeds", Schema::boolean())
      .optional("pc_range", numbers_schema())
      .required("bev_h", Schema::integer())
      .required("bev_w", Schema::integer())
      .optional("rotate_center", integers_schema())
      .required("encoder", layer_sequence("BEVFormerEncoder", layer))
      .required("positional_encoding", positional);
  return schema;
}

Schema head_losses(Schema schema) {
  schema.optional("loss_cls", focal_loss_schema())
      .optional("loss_bbox", weighted_loss_schema("L1Loss"))
      .optional("loss_iou", weighted_loss_schema("GIoULoss"));
  return schema;
}

Schema te_head() {
  const Schema msda = deformable_attention("MultiScaleDeformableAttention");
  Schema encoder =
      layer_sequence("DetrTransformerEncoder",
                     transformer_layer("BaseTransformerLayer",
                                       attention_list({{"MultiScaleDeformableAttention", msda}})));
  Schema decoder = layer_sequence(
      "DeformableDetrTransformerDecoder",
      transformer_layer("CustomDetrTransformerDecoderLayer",
                        attention_list({{"MultiheadAttention", multihead_attention()},
                                        {"MultiScaleDeformableAttention", msda}})));
  Schema transformer = typed_schema("DeformableDetrTransformer");
  transformer.required("encoder", encoder)
      .required("decoder", decoder)
      .optional("num_feature_levels", Schema::integer());
  Schema positional = typed_schema("SinePositionalEncoding");
  positional.required("num_feats", Schema::integer())
      .optional("temperature", Schema::number())
      .optional("normalize", Schema::boolean())
      .optional("scale", Schema::number())
      .optional("eps", Schema::number())
      .optional("offset", Schema::number());
  Schema test_cfg = Schema::map();
  test_cfg.optional("max_per_img", Schema::integer());
  Schema schema = typed_schema("TEDeformableDETRHead");
  schema.required("num_query", Schema::integer())
      .required("num_classes", Schema::integer())
      .required("in_channels", Schema::integer())
      .optional("num_reg_fcs", Schema::integer())
      .optional("sync_cls_avg_factor", Schema::boolean())
      .optional("with_box_refine", Schema::boolean())
      .optional("as_two_stage", Schema::boolean())
      .required("transformer", transformer)
      .required("positional_encoding", positional)
      .optional("test_cfg", test_cfg.nullable());
  return head_losses(schema);
}

Schema lc_head() {
  Schema decoder = layer_sequence(
      "LaneDetectionTransformerDecoder",
      transformer_layer("CustomDetrTransformerDecoderLayer",
                        attention_list({{"MultiheadAttention", multihead_attention()},
                                        {"CustomMSDeformableAttention",
                                         deformable_attention("CustomMSDeformableAttention")}})));
  Schema transformer = typed_schema("PerceptionTransformer");
  transformer.optional("embed_dims", Schema::integer()).required("decoder", decoder);
  Schema schema = typed_schema("LCDeformableDETRHead");
  schema.required("num_query", Schema::integer())
      .required("num_classes", Schema::integer())
      .required("in_channels", Schema::integer())
      .required("bev_h", Schema::integer())
      .required("bev_w", Schema::integer())
      .optional("num_reg_fcs", Schema::integer())
      .optional("sync_cls_avg_factor", Schema::boolean())
      .optional("with_box_refine", Schema::boolean())
      .optional("with_shared_param", Schema::boolean())
      .optional("as_two_stage", Schema::boolean())
      .required("code_size", Schema::integer())
      .optional("code_weights", numbers_schema())
      .required("pc_range", numbers_schema())
      .required("transformer", transformer);
  return head_losses(schema);
}

Schema relationship_head() {
  Schema schema = typed_schema("RelationshipHead");
  schema.required("in_channels_o1", Schema::integer())
      .optional("in_channels_o2", Schema::integer())
      .optional("shared_param", Schema::boolean())
      .required("loss_rel", focal_loss_schema());
  return schema;
}

}  // namespace

Schema baseline_large_schema() {
  Schema box_train_cfg = Schema::map();
  box_train_cfg.required("assigner", assigner_schema());
  Schema pts = Schema::map();
  pts.required("assigner", assigner_schema())
      .optional("grid_size", integers_schema())
      .optional("voxel_size", numbers_schema())
      .optional("point_cloud_range", numbers_schema())
      .optional("out_size_factor", Schema::integer());
  Schema train_cfg = Schema::map();
  train_cfg.required("pts", pts);
  Schema schema = typed_schema("BaselineLarge");
  schema.optional("video_test_mode", Schema::boolean())
      .required("img_backbone", resnet_schema())
      .required("img_neck", fpn())
      .required("bev_constructor", bev_constructor())
      .required("bbox_head", te_head())
      .required("pts_bbox_head", lc_head())
      .required("lclc_head", relationship_head())
      .required("lcte_head", relationship_head())
      .required("bbox_train_cfg", box_train_cfg)
      .required("train_cfg", train_cfg)
      .optional("test_cfg", Schema::open_map().nullable())
      .optional("pretrained", Schema::string().nullable())
      .optional("checkpoint",
                Schema::sequence(Schema::string().choices({"extract_feat", "bev_constructor"})));
  return schema;
}

}  // namespace olv2
