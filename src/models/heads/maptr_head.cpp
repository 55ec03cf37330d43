#include "olv2/models/heads/maptr_head.h"

#include <torch/torch.h>

#include <string>

#include "olv2/assign/maptr_assigner.h"
#include "olv2/assign/match_costs.h"
#include "olv2/config/section_readers.h"
#include "olv2/losses/focal_loss.h"
#include "olv2/losses/l1_loss.h"
#include "olv2/losses/pts_dir_cos_loss.h"
#include "olv2/models/heads/lane_branches.h"
#include "olv2/models/heads/lane_set_loss.h"
#include "olv2/models/layers/ffn.h"
#include "olv2/models/layers/sine_positional_encoding.h"
#include "olv2/models/layers/transformer_layer_config.h"
#include "olv2/util/error.h"

namespace olv2 {

MapTrHeadOptions::MapTrHeadOptions()
    : loss_cls(weighted_loss<FocalLoss>(1.5)),
      loss_bbox(weighted_loss<L1Loss>(0.025)),
      loss_dir(weighted_loss<PtsDirCosLoss>(0.005)) {
  auto area_assigner = std::make_shared<MapTrAssignerOptions>();
  auto cls_cost = std::make_shared<FocalLossCost>();
  cls_cost->weight = 1.5;
  area_assigner->cls_cost = cls_cost;
  auto reg_cost = std::make_shared<LaneL1Cost>();
  reg_cost->weight = 0.025;
  area_assigner->reg_cost = reg_cost;
  assigner = area_assigner;
  transformer.self_attention.num_heads = 8;
  transformer.cross_attention.num_levels = 1;
}

Schema MapTrHeadOptions::schema() {
  Schema layer = transformer_layer_schema("DetrTransformerDecoderLayer", attention_list_schema());
  Schema decoder = layer_sequence_schema("MapTRDecoder", layer);
  decoder.optional("pts_dim", Schema::integer());
  Schema transformer = typed_schema("MapTRTransformerDecoderOnly");
  transformer.optional("embed_dims", Schema::integer())
      .optional("pts_dim", Schema::integer())
      .required("decoder", decoder);
  Schema schema = typed_schema("MapTRHead");
  schema.required("num_classes", Schema::integer().range(1, 1000))
      .required("in_channels", Schema::integer())
      .optional("num_query", Schema::integer())
      .optional("num_vec", Schema::integer().range(1, 100000))
      .optional("num_pts_per_vec", Schema::integer().range(2, 1000))
      .optional("num_pts_per_gt_vec", Schema::integer().range(2, 1000))
      .optional("dir_interval", Schema::integer().range(1, 1000))
      .optional("bev_h", Schema::integer().range(1, 100000))
      .optional("bev_w", Schema::integer().range(1, 100000))
      .required("pc_range", numbers_schema())
      .optional("pts_dim", Schema::integer())
      .optional("code_size", Schema::integer())
      .optional("code_weights", numbers_schema())
      .optional("num_cls_fcs", Schema::integer().range(1, 16))
      .optional("num_reg_fcs", Schema::integer().range(1, 16))
      .optional("sync_cls_avg_factor", Schema::boolean())
      .optional("with_box_refine", Schema::boolean())
      .optional("as_two_stage", Schema::boolean())
      .required("transformer", transformer)
      .optional("positional_encoding", SinePositionalEncodingOptions::schema())
      .required("bbox_coder", typed_schema("AreaPseudoCoder"))
      .required("loss_cls", loss_registry().schema())
      .optional("loss_bbox", loss_registry().schema())
      .optional("loss_iou", loss_registry().schema())
      .optional("loss_dir", loss_registry().schema())
      .optional("train_cfg", assigner_train_cfg_schema())
      .optional("test_cfg", Schema::open_map().nullable());
  return schema;
}

MapTrHeadOptions MapTrHeadOptions::from_config(const ConfigNode& section) {
  MapTrHeadOptions o;
  o.num_classes = section.at("num_classes").as_int();
  o.in_channels = section.at("in_channels").as_int();
  o.num_vec = section.get<int64_t>("num_vec", o.num_vec);
  o.num_pts_per_vec = section.get<int64_t>("num_pts_per_vec", o.num_pts_per_vec);
  o.num_pts_per_gt_vec = section.get<int64_t>("num_pts_per_gt_vec", o.num_pts_per_gt_vec);
  o.dir_interval = section.get<int64_t>("dir_interval", o.dir_interval);
  if (o.dir_interval >= o.num_pts_per_gt_vec) {
    throw input_error(section.at("dir_interval").where() + ": dir_interval " +
                      std::to_string(o.dir_interval) + " leaves no direction between " +
                      std::to_string(o.num_pts_per_gt_vec) + " points (num_pts_per_gt_vec)");
  }
  require_flag(section, "with_box_refine", true,
               "the decoder refines each layer's reference points with that layer's regression "
               "(with_box_refine: false is not supported)");
  require_flag(section, "as_two_stage", false, "the original's configs never use two stages");
  o.bev_h = section.get<int64_t>("bev_h", o.bev_h);
  o.bev_w = section.get<int64_t>("bev_w", o.bev_w);
  o.pc_range = fixed_numbers<6>(section.at("pc_range"));
  o.pts_dim = section.get<int64_t>("pts_dim", o.pts_dim);
  if (o.pts_dim != 2 && o.pts_dim != 3) {
    throw input_error(section.at("pts_dim").where() + ": pts_dim must be 2 or 3");
  }
  const int64_t code_size = section.get<int64_t>("code_size", 3);
  if (code_size != o.pts_dim) {
    throw input_error(section.where() + ": code_size " + std::to_string(code_size) +
                      " must be pts_dim " + std::to_string(o.pts_dim) +
                      " (each query regresses one point)");
  }
  o.code_weights = read_code_weights(section, code_size);
  o.num_cls_fcs = section.get<int64_t>("num_cls_fcs", o.num_cls_fcs);
  o.num_reg_fcs = section.get<int64_t>("num_reg_fcs", o.num_reg_fcs);
  o.sync_cls_avg_factor = section.get<bool>("sync_cls_avg_factor", o.sync_cls_avg_factor);

  const ConfigNode& transformer = section.at("transformer");
  MapTrTransformerOptions& t = o.transformer;
  t.embed_dims = transformer.get<int64_t>("embed_dims", t.embed_dims);
  t.pts_dim = transformer.get<int64_t>("pts_dim", t.pts_dim);
  const ConfigNode& decoder = transformer.at("decoder");
  require_flag(decoder, "return_intermediate", true, "every decoder layer has its loss");
  t.num_layers = decoder.at("num_layers").as_int();
  if (decoder.get<int64_t>("pts_dim", t.pts_dim) != t.pts_dim || t.pts_dim != o.pts_dim) {
    throw input_error(transformer.where() +
                      ": the transformer's and the decoder's pts_dim must be the head's " +
                      std::to_string(o.pts_dim) + " (the references are refined by its points)");
  }
  const ConfigNode& layer = decoder.at("transformerlayers");
  require_operation_order(layer, {"self_attn", "norm", "cross_attn", "norm", "ffn", "norm"});
  t.self_attention = layer_attention<MultiheadAttentionOptions>(layer, 0, "MultiheadAttention");
  t.cross_attention = layer_attention<MultiScaleDeformableAttentionOptions>(
      layer, 1, "a multi-scale deformable attention on the BEV");
  // mmcv BaseTransformerLayer's default ffn_cfgs.
  t.ffn = FfnOptions::from_layer_config(layer, FfnOptions{256, 1024, 2, 0.0});

  if (o.in_channels != t.embed_dims) {
    throw input_error(section.at("in_channels").where() + ": in_channels " +
                      std::to_string(o.in_channels) +
                      " differs from the transformer's embed_dims " + std::to_string(t.embed_dims));
  }
  // mmdet's DETRHead, whose positional encoding MapTRHead never runs, still requires it to fit.
  SinePositionalEncodingOptions positional;
  positional.num_feats = 128;
  if (const ConfigNode* encoding = section.find("positional_encoding")) {
    positional = SinePositionalEncodingOptions::from_config(*encoding);
  }
  if (2 * positional.num_feats != t.embed_dims) {
    throw input_error(section.where() + ": positional_encoding.num_feats " +
                      std::to_string(positional.num_feats) +
                      " (128 when absent) is not half of "
                      "embed_dims " +
                      std::to_string(t.embed_dims) +
                      ", which MapTRHead's base class DETRHead requires");
  }

  const Registry<Loss>& losses = loss_registry();
  o.loss_cls = read_for_kind(losses, section, "loss_cls", PredictionKind::kClassScores,
                             std::shared_ptr<const Loss>{});
  o.loss_bbox = read_for_kind(losses, section, "loss_bbox", PredictionKind::kLanePoints,
                              weighted_loss<L1Loss>(5.0));
  o.loss_dir = read_for_kind(losses, section, "loss_dir", PredictionKind::kPointDirections,
                             weighted_loss<PtsDirCosLoss>(2.0));
  o.assigner = read_train_cfg_assigner(section, AssignedObjects::kPointSets, o.assigner);
  return o;
}

MapTrHeadImpl::MapTrHeadImpl(const MapTrHeadOptions& options)
    : options_(options), assigner_(options.assigner->build()) {
  const int64_t embed_dims = options.transformer.embed_dims;
  // Registration order = the original's state-dict order (its own parameter first).
  code_weights_ = register_parameter(
      "code_weights", torch::tensor(options.code_weights, torch::kFloat), /*requires_grad=*/false);
  transformer_ = register_module("transformer", MapTrTransformer(options.transformer));
  cls_branches_ = register_module("cls_branches", torch::nn::ModuleList());
  reg_branches_ = register_module("reg_branches", torch::nn::ModuleList());
  for (int64_t i = 0; i < options.transformer.num_layers; ++i) {
    cls_branches_->push_back(
        lane_cls_branch(embed_dims, options.num_cls_fcs - 1, options.num_classes));
    reg_branches_->push_back(lane_reg_branch(embed_dims, options.num_reg_fcs, options.pts_dim));
  }
  instance_embedding_ =
      register_module("instance_embedding", torch::nn::Embedding(options.num_vec, 2 * embed_dims));
  pts_embedding_ = register_module("pts_embedding",
                                   torch::nn::Embedding(options.num_pts_per_vec, 2 * embed_dims));
  reset_parameters();
}

void MapTrHeadImpl::reset_parameters() {
  transformer_->reset_parameters();
  init_classification_prior(*cls_branches_);
}

void MapTrHeadImpl::set_dropout(double p) { transformer_->set_dropout(p); }

MapTrOutputs MapTrHeadImpl::forward(const at::Tensor& bev_feats) {
  const MapTrHeadOptions& o = options_;
  // Instance-major queries: query v * P + k is point k of instance v.
  const at::Tensor queries =
      (pts_embedding_->weight.unsqueeze(0) + instance_embedding_->weight.unsqueeze(1))
          .flatten(0, 1);
  MapTrOutputs out;
  out.decoder = transformer_->forward(bev_feats, queries, o.bev_h, o.bev_w, *reg_branches_);
  const int64_t batch = bev_feats.size(0);
  std::vector<at::Tensor> classes;
  for (int64_t l = 0; l < o.transformer.num_layers; ++l) {
    const at::Tensor instances =
        out.decoder.inter_states[l].view({batch, o.num_vec, o.num_pts_per_vec, -1}).mean(2);
    classes.push_back(run_branch(*cls_branches_[l]->as<torch::nn::ModuleList>(), instances));
  }
  out.cls_scores = torch::stack(classes);
  const BevRange& r = o.pc_range;
  std::vector<double> low = {r[0], r[1], r[2]};
  std::vector<double> extent = {r[3] - r[0], r[4] - r[1], r[5] - r[2]};
  low.resize(static_cast<size_t>(o.pts_dim));
  extent.resize(static_cast<size_t>(o.pts_dim));
  const at::Tensor& regressions = out.decoder.regressions;
  const auto options = regressions.options();
  out.points =
      (regressions * torch::tensor(extent, options.dtype(torch::kDouble)).to(options) +
       torch::tensor(low, options.dtype(torch::kDouble)).to(options))
          .view({o.transformer.num_layers, batch, o.num_vec, o.num_pts_per_vec, o.pts_dim});
  return out;
}

AreaDetections MapTrHeadImpl::decode(const MapTrOutputs& outputs, int64_t sample) const {
  const int64_t last = outputs.cls_scores.size(0) - 1;
  AreaDetections d;
  d.points = outputs.points[last][sample].to(torch::kFloat);
  d.scores = outputs.cls_scores[last][sample].to(torch::kFloat).sigmoid();
  return d;
}

}  // namespace olv2
