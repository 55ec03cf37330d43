#include "olv2/models/model_schema.h"

#include "olv2/models/baseline_large_schema.h"
#include "olv2/models/schema_parts.h"

namespace olv2 {

Schema typed_schema(const std::string& type) {
  Schema schema = Schema::map();
  schema.required("type", Schema::string().choices({type}));
  return schema;
}

Schema numbers_schema() { return Schema::sequence(Schema::number()); }
Schema integers_schema() { return Schema::sequence(Schema::integer()); }

Schema focal_loss_schema() {
  Schema loss = typed_schema("FocalLoss");
  loss.optional("use_sigmoid", Schema::boolean())
      .optional("gamma", Schema::number())
      .optional("alpha", Schema::number())
      .optional("loss_weight", Schema::number());
  return loss;
}

Schema weighted_loss_schema(const std::string& type) {
  Schema loss = typed_schema(type);
  loss.optional("loss_weight", Schema::number());
  return loss;
}

namespace {

Schema cost(const std::string& type) {
  Schema schema = typed_schema(type);
  schema.optional("weight", Schema::number());
  return schema;
}

}  // namespace

Schema assigner_schema() {
  Schema focal_cost = cost("FocalLossCost");
  focal_cost.optional("alpha", Schema::number()).optional("gamma", Schema::number());
  Schema bbox_cost = cost("BBoxL1Cost");
  bbox_cost.optional("box_format", Schema::string().choices({"xyxy", "xywh"}));
  Schema iou = cost("IoUCost");
  iou.optional("iou_mode", Schema::string().choices({"iou", "giou"}));

  Schema lane = typed_schema("LaneHungarianAssigner");
  lane.optional("cls_cost", focal_cost)
      .optional("reg_cost", cost("LaneL1Cost"))
      .optional("iou_cost", iou)
      .optional("bev_range", numbers_schema())
      .optional("normalize", Schema::boolean());
  Schema box = typed_schema("HungarianAssigner");
  box.optional("cls_cost", focal_cost).optional("reg_cost", bbox_cost).optional("iou_cost", iou);
  return Schema::tagged("type", {{"LaneHungarianAssigner", lane}, {"HungarianAssigner", box}});
}

Schema resnet_schema() {
  Schema norm = typed_schema("BN");
  norm.optional("requires_grad", Schema::boolean());
  Schema pretrained = typed_schema("Pretrained");
  pretrained.required("checkpoint", Schema::string()).optional("prefix", Schema::string());
  Schema schema = typed_schema("ResNet");
  schema.required("depth", Schema::integer())
      .optional("in_channels", Schema::integer())
      .optional("stem_channels", Schema::integer().nullable())
      .optional("base_channels", Schema::integer())
      .optional("num_stages", Schema::integer().range(1, 4))
      .optional("strides", integers_schema())
      .optional("dilations", integers_schema())
      .optional("out_indices", integers_schema())
      .optional("style", Schema::string().choices({"pytorch", "caffe"}))
      .optional("frozen_stages", Schema::integer())
      .optional("norm_cfg", norm)
      .optional("norm_eval", Schema::boolean())
      .optional("with_cp", Schema::boolean())
      .optional("zero_init_residual", Schema::boolean())
      .optional("init_cfg", pretrained.nullable());
  return schema;
}

namespace {

Schema custom_fpn() {
  Schema schema = typed_schema("CustomFPN");
  schema.required("in_channels", integers_schema())
      .required("out_channels", Schema::integer())
      .required("num_outs", Schema::integer())
      .optional("start_level", Schema::integer())
      .optional("end_level", Schema::integer())
      .optional("out_ids", integers_schema())
      .optional("add_extra_convs",
                Schema::either(Schema::boolean(),
                               Schema::string().choices({"on_input", "on_lateral", "on_output"})))
      .optional("relu_before_extra_convs", Schema::boolean());
  return schema;
}

Schema ipm_view_transformer() {
  Schema schema = typed_schema("CustomIPMViewTransformer");
  schema.required("num_cam", Schema::integer())
      .required("xbound", numbers_schema())
      .required("ybound", numbers_schema())
      .required("zbound", numbers_schema())
      .required("out_channels", Schema::integer());
  return schema;
}

Schema detr_head() {
  Schema train_cfg = Schema::map();
  train_cfg.required("assigner", assigner_schema());
  Schema schema = typed_schema("CustomDETRHead");
  schema.required("num_classes", Schema::integer())
      .required("in_channels", Schema::integer())
      .required("num_query", Schema::integer())
      .required("object_type", Schema::string().choices({"lane", "bbox"}))
      .optional("num_reg_dim", Schema::integer())
      .optional("num_layers", Schema::integer())
      .optional("feedforward_channels", Schema::integer())
      .optional("embed_dims", Schema::integer())
      .optional("num_heads", Schema::integer())
      .optional("dropout", Schema::number().range(0, 1))
      .optional("ffn_dropout", Schema::number().range(0, 1))
      .optional("loss_cls", focal_loss_schema())
      .optional("loss_bbox", weighted_loss_schema("L1Loss"))
      .optional("loss_iou", weighted_loss_schema("GIoULoss"))
      .required("train_cfg", train_cfg)
      .optional("test_cfg", Schema::open_map().nullable())
      .optional("bev_range", numbers_schema());
  return schema;
}

Schema topology_head() {
  Schema schema = typed_schema("TopologyHead");
  schema.required("in_channels", Schema::integer())
      .required("hidden_channels", Schema::integer())
      .required("out_channels", Schema::integer())
      .required("num_layers", Schema::integer())
      .required("loss_cls", focal_loss_schema());
  return schema;
}

}  // namespace

Schema model_schema() {
  Schema baseline = typed_schema("Baseline");
  baseline.required("img_backbone", resnet_schema())
      .required("img_neck", custom_fpn())
      .required("img_view_transformer", ipm_view_transformer())
      .required("lc_head", detr_head())
      .required("te_head", detr_head())
      .required("lclc_head", topology_head())
      .required("lcte_head", topology_head())
      .optional("train_cfg", Schema::open_map().nullable())
      .optional("test_cfg", Schema::open_map().nullable())
      .optional("pretrained", Schema::string().nullable())
      .optional(
          "checkpoint",
          Schema::sequence(Schema::string().choices({"extract_feat", "img_view_transformer"})));
  return Schema::tagged("type",
                        {{"Baseline", baseline}, {"BaselineLarge", baseline_large_schema()}});
}

}  // namespace olv2
