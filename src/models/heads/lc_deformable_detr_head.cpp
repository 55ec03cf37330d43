#include "olv2/models/heads/lc_deformable_detr_head.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"
#include "olv2/models/heads/detr_head_losses.h"
#include "olv2/models/heads/lane_branches.h"
#include "olv2/models/heads/lane_regression.h"
#include "olv2/models/heads/lane_set_loss.h"
#include "olv2/models/layers/deformable_detr_transformer.h"
#include "olv2/models/layers/multi_scale_deformable_attention.h"
#include "olv2/models/layers/transformer_layer_config.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema LcDeformableDetrHeadOptions::schema() {
  Schema decoder = layer_sequence_schema(
      "LaneDetectionTransformerDecoder",
      transformer_layer_schema("CustomDetrTransformerDecoderLayer", attention_list_schema()));
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
      .required("transformer", transformer)
      .optional("train_cfg", assigner_train_cfg_schema());
  declare_detr_loss_keys(schema);
  return schema;
}

LcDeformableDetrHeadOptions LcDeformableDetrHeadOptions::from_config(const ConfigNode& section) {
  LcDeformableDetrHeadOptions o;
  o.num_query = section.at("num_query").as_int();
  o.num_classes = section.at("num_classes").as_int();
  o.in_channels = section.at("in_channels").as_int();
  o.bev_h = section.at("bev_h").as_int();
  o.bev_w = section.at("bev_w").as_int();
  o.num_reg_fcs = section.get<int64_t>("num_reg_fcs", o.num_reg_fcs);
  o.sync_cls_avg_factor = section.get<bool>("sync_cls_avg_factor", o.sync_cls_avg_factor);
  require_flag(section, "with_box_refine", false, "the lane decoder has no reference refinement");
  require_flag(section, "with_shared_param", false, "every decoder layer has its own branches");
  require_flag(section, "as_two_stage", false, "the original's configs never use two stages");
  o.code_size = section.at("code_size").as_int();
  if (o.code_size % 3 != 0) {
    throw input_error(section.at("code_size").where() + ": code_size must be a multiple of 3");
  }
  o.code_weights = read_code_weights(section, o.code_size);
  o.pc_range = fixed_numbers<6>(section.at("pc_range"));

  const ConfigNode& transformer = section.at("transformer");
  const ConfigNode& decoder = transformer.at("decoder");
  require_flag(decoder, "return_intermediate", true, "every decoder layer has its loss");
  o.num_decoder_layers = decoder.at("num_layers").as_int();
  const ConfigNode& layer = decoder.at("transformerlayers");
  const DecoderLayerAttentions d = DecoderLayerAttentions::from_config(layer);
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
  const FfnOptions ffn = FfnOptions::from_layer_config(
      layer, FfnOptions{o.embed_dims, o.feedforward_channels, 2, o.ffn_drop});
  if (ffn.num_fcs != 2) throw input_error(layer.where() + ": the FFN must have two layers");
  o.feedforward_channels = ffn.feedforward_channels;
  o.ffn_drop = ffn.ffn_drop;

  read_detr_losses(section, PredictionKind::kLanePoints, o.loss_cls, o.loss_bbox, nullptr);
  o.assigner = read_train_cfg_assigner(section, AssignedObjects::kLanes, o.assigner);
  return o;
}

std::shared_ptr<ObjectHeadImpl> LcDeformableDetrHeadOptions::build() const {
  return std::make_shared<LcDeformableDetrHeadImpl>(*this);
}

namespace {

void check_options(const LcDeformableDetrHeadOptions& options) {
  if (options.in_channels != options.embed_dims) {
    throw input_error("LCDeformableDETRHead: in_channels " + std::to_string(options.in_channels) +
                      " differs from the transformer's embed_dims " +
                      std::to_string(options.embed_dims));
  }
  if (options.code_size % 3 != 0) {
    throw input_error("LCDeformableDETRHead: code_size must be a multiple of 3, got " +
                      std::to_string(options.code_size));
  }
  if (static_cast<int64_t>(options.code_weights.size()) != options.code_size) {
    throw input_error("LCDeformableDETRHead: " + std::to_string(options.code_weights.size()) +
                      " code_weights for code_size " + std::to_string(options.code_size));
  }
  if (options.num_levels != 1) {
    throw input_error("LCDeformableDETRHead: the BEV is a single feature level, got num_levels " +
                      std::to_string(options.num_levels));
  }
}

LaneDetectionTransformerOptions transformer_options(const LcDeformableDetrHeadOptions& head) {
  LaneDetectionTransformerOptions options;
  options.embed_dims = head.embed_dims;
  options.num_layers = head.num_decoder_layers;
  options.num_heads = head.num_heads;
  options.num_points = head.num_points;
  options.feedforward_channels = head.feedforward_channels;
  options.ffn_drop = head.ffn_drop;
  options.attention_dropout = head.attention_dropout;
  options.msda_dropout = head.msda_dropout;
  return options;
}

}  // namespace

LcDeformableDetrHeadImpl::LcDeformableDetrHeadImpl(const LcDeformableDetrHeadOptions& options)
    : options_(options), assigner_(options.assigner->build()) {
  check_options(options);
  transformer_ =
      register_module("transformer", PerceptionTransformer(transformer_options(options)));
  code_weights_ = register_parameter(
      "code_weights", torch::tensor(options.code_weights, torch::kFloat), /*requires_grad=*/false);
  cls_branches_ = register_module("cls_branches", torch::nn::ModuleList());
  reg_branches_ = register_module("reg_branches", torch::nn::ModuleList());
  for (int64_t i = 0; i < options.num_decoder_layers; ++i) {
    cls_branches_->push_back(
        lane_cls_branch(options.embed_dims, options.num_reg_fcs, options.num_classes));
    reg_branches_->push_back(
        lane_reg_branch(options.embed_dims, options.num_reg_fcs, options.code_size));
  }
  query_embedding_ = register_module(
      "query_embedding", torch::nn::Embedding(options.num_query, 2 * options.embed_dims));
  reset_parameters();
}

void LcDeformableDetrHeadImpl::reset_parameters() {
  transformer_->reset_parameters();
  init_classification_prior(*cls_branches_);
}

HeadOutputs LcDeformableDetrHeadImpl::forward(const std::vector<at::Tensor>& levels,
                                              const DetrImageGeometry& /*geometry*/) {
  if (levels.size() != 1 || levels[0].dim() != 4 || levels[0].size(2) != options_.bev_h ||
      levels[0].size(3) != options_.bev_w) {
    throw input_error("LCDeformableDETRHead: expected one BEV level [B, C, " +
                      std::to_string(options_.bev_h) + ", " + std::to_string(options_.bev_w) +
                      "] (bev_h, bev_w)");
  }
  // Back to the BEV constructor's [B, bev_h * bev_w, C] order; a view, not a copy, of its output.
  return forward(levels[0].flatten(2).transpose(1, 2));
}

HeadOutputs LcDeformableDetrHeadImpl::forward(const at::Tensor& bev_feats) {
  const LaneTransformerOutputs decoded =
      transformer_->forward(bev_feats, query_embedding_->weight, options_.bev_h, options_.bev_w);
  const at::Tensor reference = inverse_sigmoid(decoded.init_reference);  // [B, Q, 3]
  std::vector<at::Tensor> classes, lanes;
  for (int64_t l = 0; l < options_.num_decoder_layers; ++l) {
    const at::Tensor states = decoded.inter_states[l];
    classes.push_back(run_branch(*cls_branches_[l]->as<torch::nn::ModuleList>(), states));
    lanes.push_back(
        lanes_from_regression(run_branch(*reg_branches_[l]->as<torch::nn::ModuleList>(), states),
                              reference, options_.pc_range, 3));
  }
  HeadOutputs out;
  out.cls_scores = torch::stack(classes);
  out.reg_preds = torch::stack(lanes);
  out.query_states = decoded.inter_states;
  return out;
}

Detections LcDeformableDetrHeadImpl::decode(const HeadOutputs& outputs, int64_t sample,
                                            std::pair<int64_t, int64_t> /*img_shape*/,
                                            const std::vector<double>& /*scale_factor*/) const {
  return last_layer_lanes(outputs, sample);
}

}  // namespace olv2
