#include "olv2/models/heads/laneseg_head.h"

#include <torch/torch.h>

#include <string>

#include "olv2/assign/lane_segment_hungarian_assigner.h"
#include "olv2/assign/match_costs.h"
#include "olv2/config/section_readers.h"
#include "olv2/losses/cross_entropy_loss.h"
#include "olv2/losses/dice_loss.h"
#include "olv2/losses/focal_loss.h"
#include "olv2/losses/l1_loss.h"
#include "olv2/models/heads/lane_branches.h"
#include "olv2/models/heads/lane_set_loss.h"
#include "olv2/models/layers/ffn.h"
#include "olv2/models/layers/transformer_layer_config.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

template <typename Cost>
std::shared_ptr<const MatchCost> weighted_cost(double weight) {
  auto cost = std::make_shared<Cost>();
  cost->weight = weight;
  return cost;
}

std::shared_ptr<const Loss> sigmoid_cross_entropy(double loss_weight) {
  return weighted_loss<CrossEntropyLoss>(loss_weight);
}

std::shared_ptr<const Loss> dice_loss(double loss_weight, bool naive_dice, double eps) {
  auto loss = std::make_shared<DiceLoss>();
  loss->loss_weight = loss_weight;
  loss->naive_dice = naive_dice;
  loss->eps = eps;
  return loss;
}

}  // namespace

LaneSegHeadOptions::LaneSegHeadOptions()
    : loss_cls(weighted_loss<FocalLoss>(1.5)),
      loss_bbox(weighted_loss<L1Loss>(0.025)),
      loss_lane_type(sigmoid_cross_entropy(0.1)),
      loss_mask(sigmoid_cross_entropy(3.0)),
      loss_dice(dice_loss(3.0, /*naive_dice=*/true, /*eps=*/1.0)) {
  auto lane_assigner = std::make_shared<LaneSegmentHungarianAssigner3DOptions>();
  lane_assigner->cls_cost = weighted_cost<FocalLossCost>(1.5);
  lane_assigner->reg_cost = weighted_cost<LaneL1Cost>(0.025);
  lane_assigner->mask_cost = weighted_cost<CrossEntropyLossCost>(3.0);
  auto dice = std::make_shared<DiceCost>();
  dice->weight = 3.0;
  dice->eps = 1.0;
  lane_assigner->dice_cost = dice;
  assigner = lane_assigner;
  transformer.self_attention.num_heads = 8;
  transformer.cross_attention.per_head_reference_points = true;
  transformer.cross_attention.num_levels = 1;
  transformer.cross_attention.num_points = 32;
}

Schema LaneSegHeadOptions::schema() {
  Schema layer =
      transformer_layer_schema("CustomDetrTransformerDecoderLayer", attention_list_schema());
  Schema decoder = layer_sequence_schema("LaneSegNetDecoder", layer);
  decoder.optional("pts_dim", Schema::integer())
      .optional("sample_idx", Schema::sequence(Schema::integer()));
  Schema transformer = typed_schema("LaneSegNetTransformer");
  transformer.optional("embed_dims", Schema::integer())
      .optional("points_num", Schema::integer().range(2, 1000))
      .optional("pts_dim", Schema::integer())
      .required("decoder", decoder);
  Schema coder = typed_schema("LaneSegmentPseudoCoder");
  coder.optional("denormalize", Schema::boolean());
  Schema schema = typed_schema("LaneSegHead");
  schema.required("num_classes", Schema::integer().range(1, 1000))
      .optional("num_lane_type_classes", Schema::integer().range(1, 1000))
      .required("in_channels", Schema::integer())
      .optional("num_query", Schema::integer().range(1, 100000))
      .optional("with_box_refine", Schema::boolean())
      .optional("with_shared_param", Schema::boolean().nullable())
      .optional("bev_h", Schema::integer().range(1, 100000))
      .optional("bev_w", Schema::integer().range(1, 100000))
      .required("pc_range", numbers_schema())
      .optional("pts_dim", Schema::integer())
      .optional("sync_cls_avg_factor", Schema::boolean())
      .optional("code_size", Schema::integer())
      .optional("code_weights", numbers_schema())
      .optional("num_reg_fcs", Schema::integer().range(1, 16))
      .optional("pred_mask", Schema::boolean())
      .required("transformer", transformer)
      .required("bbox_coder", coder)
      .required("loss_cls", loss_registry().schema())
      .optional("loss_bbox", loss_registry().schema())
      .optional("loss_lane_type", loss_registry().schema())
      .required("loss_mask", loss_registry().schema())
      .optional("loss_dice", loss_registry().schema())
      .optional("train_cfg", assigner_train_cfg_schema())
      .optional("test_cfg", Schema::open_map().nullable());
  return schema;
}

LaneSegHeadOptions LaneSegHeadOptions::from_config(const ConfigNode& section) {
  LaneSegHeadOptions o;
  o.num_classes = section.at("num_classes").as_int();
  o.num_lane_type_classes = section.get<int64_t>("num_lane_type_classes", o.num_lane_type_classes);
  o.in_channels = section.at("in_channels").as_int();
  o.num_query = section.get<int64_t>("num_query", o.num_query);
  require_flag(section, "with_box_refine", true,
               "the decoder samples around the boundaries each layer predicts (with_box_refine: "
               "false is not supported)");
  if (const ConfigNode* shared = section.find("with_shared_param");
      shared != nullptr && !shared->is_null() && shared->as_bool()) {
    throw input_error(shared->where() +
                      ": every decoder layer has branches of its own (with_shared_param: true is "
                      "not supported)");
  }
  o.bev_h = section.get<int64_t>("bev_h", o.bev_h);
  o.bev_w = section.get<int64_t>("bev_w", o.bev_w);
  o.pc_range = fixed_numbers<6>(section.at("pc_range"));
  o.pts_dim = section.get<int64_t>("pts_dim", o.pts_dim);
  if (o.pts_dim != 2 && o.pts_dim != 3) {
    throw input_error(section.at("pts_dim").where() + ": pts_dim must be 2 or 3");
  }
  o.sync_cls_avg_factor = section.get<bool>("sync_cls_avg_factor", o.sync_cls_avg_factor);
  o.num_reg_fcs = section.get<int64_t>("num_reg_fcs", o.num_reg_fcs);
  o.pred_mask = section.get<bool>("pred_mask", o.pred_mask);
  require_flag(section.at("bbox_coder"), "denormalize", false,
               "the lane segments are regressed in metres");

  const ConfigNode& transformer = section.at("transformer");
  LaneSegNetTransformerOptions& t = o.transformer;
  t.embed_dims = transformer.get<int64_t>("embed_dims", t.embed_dims);
  t.points_num = transformer.get<int64_t>("points_num", 1);
  t.pts_dim = transformer.get<int64_t>("pts_dim", t.pts_dim);
  t.pc_range = o.pc_range;
  const ConfigNode& decoder = transformer.at("decoder");
  require_flag(decoder, "return_intermediate", true, "every decoder layer has its loss");
  t.num_layers = decoder.at("num_layers").as_int();
  if (const ConfigNode* range = decoder.find("pc_range")) t.pc_range = fixed_numbers<6>(*range);
  if (t.pc_range != o.pc_range) {
    throw input_error(decoder.at("pc_range").where() +
                      ": the decoder's pc_range differs from the head's, in which the head "
                      "scales the same centerlines");
  }
  if (decoder.get<int64_t>("pts_dim", t.pts_dim) != t.pts_dim || t.pts_dim != o.pts_dim) {
    throw input_error(transformer.where() +
                      ": the transformer's and the decoder's pts_dim must be the head's " +
                      std::to_string(o.pts_dim));
  }
  if (const ConfigNode* sample_idx = decoder.find("sample_idx")) {
    t.sample_idx = sample_idx->as_vector<int64_t>();
  }
  const ConfigNode& layer = decoder.at("transformerlayers");
  require_operation_order(layer, {"self_attn", "norm", "cross_attn", "norm", "ffn", "norm"});
  t.self_attention = layer_attention<MultiheadAttentionOptions>(layer, 0, "MultiheadAttention");
  t.cross_attention =
      layer_attention<MultiScaleDeformableAttentionOptions>(layer, 1, "LaneAttention on the BEV");
  if (!t.cross_attention.per_head_reference_points) {
    throw input_error(attention_entry(layer, 1).where() +
                      ": the lane-segment decoder's cross-attention is a LaneAttention (one "
                      "reference point per head)");
  }
  const int64_t reference_points = 2 * static_cast<int64_t>(t.sample_idx.size());
  if (t.cross_attention.num_heads != reference_points) {
    throw input_error(
        attention_entry(layer, 1).where() +
        ": LaneAttention's head k samples "
        "around reference point k, and the decoder gives " +
        std::to_string(reference_points) + " (sample_idx on each boundary), so num_heads must be " +
        std::to_string(reference_points) + ", got " + std::to_string(t.cross_attention.num_heads));
  }
  // mmcv BaseTransformerLayer's default ffn_cfgs.
  t.ffn = FfnOptions::from_layer_config(layer, FfnOptions{256, 1024, 2, 0.0});

  if (o.in_channels != t.embed_dims) {
    throw input_error(section.at("in_channels").where() + ": in_channels " +
                      std::to_string(o.in_channels) +
                      " differs from the transformer's embed_dims " + std::to_string(t.embed_dims));
  }
  o.code_size = section.get<int64_t>("code_size", o.pts_dim * 30);
  if (o.code_size != 3 * t.points_num * o.pts_dim) {
    throw input_error(section.where() + ": code_size " + std::to_string(o.code_size) +
                      " is not 3 lines of points_num " + std::to_string(t.points_num) +
                      " points of pts_dim " + std::to_string(o.pts_dim));
  }
  o.code_weights = read_code_weights(section, o.code_size);

  const Registry<Loss>& losses = loss_registry();
  o.loss_cls = read_for_kind(losses, section, "loss_cls", PredictionKind::kClassScores,
                             std::shared_ptr<const Loss>{});
  o.loss_bbox = read_for_kind(losses, section, "loss_bbox", PredictionKind::kLanePoints,
                              weighted_loss<L1Loss>(5.0));
  o.loss_lane_type = read_for_kind(losses, section, "loss_lane_type", PredictionKind::kClassScores,
                                   sigmoid_cross_entropy(1.0));
  o.loss_mask = read_for_kind(losses, section, "loss_mask", PredictionKind::kMaskLogits,
                              std::shared_ptr<const Loss>{});
  o.loss_dice = read_for_kind(losses, section, "loss_dice", PredictionKind::kMaskLogits,
                              dice_loss(3.0, /*naive_dice=*/false, /*eps=*/1e-3));
  o.assigner = read_train_cfg_assigner(section, AssignedObjects::kLaneSegments, o.assigner);
  return o;
}

LaneSegHeadImpl::LaneSegHeadImpl(const LaneSegHeadOptions& options)
    : options_(options), assigner_(options.assigner->build()) {
  const int64_t embed_dims = options.transformer.embed_dims;
  const int64_t line_values = options.code_size / 3;
  transformer_ = register_module("transformer", LaneSegNetTransformer(options.transformer));
  code_weights_ = register_parameter(
      "code_weights", torch::tensor(options.code_weights, torch::kFloat), /*requires_grad=*/false);
  query_embedding_ =
      register_module("query_embedding", torch::nn::Embedding(options.num_query, 2 * embed_dims));
  cls_branches_ = register_module("cls_branches", torch::nn::ModuleList());
  reg_branches_ = register_module("reg_branches", torch::nn::ModuleList());
  reg_branches_offset_ = register_module("reg_branches_offset", torch::nn::ModuleList());
  cls_left_type_branches_ = register_module("cls_left_type_branches", torch::nn::ModuleList());
  cls_right_type_branches_ = register_module("cls_right_type_branches", torch::nn::ModuleList());
  mask_embed_ = register_module("mask_embed", torch::nn::ModuleList());
  const int64_t fcs = options.num_reg_fcs;
  for (int64_t i = 0; i < options.transformer.num_layers; ++i) {
    cls_branches_->push_back(lane_cls_branch(embed_dims, fcs, options.num_classes));
    reg_branches_->push_back(lane_reg_branch(embed_dims, fcs, line_values));
    reg_branches_offset_->push_back(lane_reg_branch(embed_dims, fcs, line_values));
    cls_left_type_branches_->push_back(
        lane_cls_branch(embed_dims, fcs, options.num_lane_type_classes));
    cls_right_type_branches_->push_back(
        lane_cls_branch(embed_dims, fcs, options.num_lane_type_classes));
    // Always three Linear layers, whatever num_reg_fcs.
    mask_embed_->push_back(lane_reg_branch(embed_dims, 2, embed_dims));
  }
}

void LaneSegHeadImpl::reset_parameters() { transformer_->reset_parameters(); }

void LaneSegHeadImpl::set_dropout(double p) { transformer_->set_dropout(p); }

at::Tensor LaneSegHeadImpl::mask_logits(int64_t layer, const at::Tensor& states,
                                        const at::Tensor& bev) const {
  // [B, Q, E] x [B, E, h * w] -> [B, Q, h, w]
  const at::Tensor embedding =
      run_branch(*mask_embed_->ptr(layer)->as<torch::nn::ModuleList>(), states);
  return embedding.bmm(bev.flatten(2)).view({bev.size(0), -1, options_.bev_h, options_.bev_w});
}

LaneSegmentOutputs LaneSegHeadImpl::forward(const at::Tensor& bev) {
  if (bev.dim() != 4 || bev.size(2) != options_.bev_h || bev.size(3) != options_.bev_w) {
    throw input_error("LaneSegHead: expected the BEV [B, C, " + std::to_string(options_.bev_h) +
                      ", " + std::to_string(options_.bev_w) + "] (bev_h x bev_w), got " +
                      c10::str(bev.sizes()));
  }
  const at::Tensor bev_feats = bev.flatten(2).transpose(1, 2);  // [B, bev_h * bev_w, C]
  LaneSegmentOutputs out;
  out.decoder = transformer_->forward(bev_feats, query_embedding_->weight, options_.bev_h,
                                      options_.bev_w, *reg_branches_, *reg_branches_offset_);
  out.query_states = out.decoder.inter_states;
  const int64_t num_layers = options_.transformer.num_layers;
  // Eval mode: the last layer's predictions only, as the original.
  const int64_t first = is_training() ? 0 : num_layers - 1;
  std::vector<at::Tensor> classes, left_types, right_types, masks;
  for (int64_t l = first; l < num_layers; ++l) {
    const at::Tensor states = out.query_states[l];
    const auto branch = [&](const torch::nn::ModuleList& branches) {
      return run_branch(*branches->ptr(l)->as<torch::nn::ModuleList>(), states);
    };
    classes.push_back(branch(cls_branches_));
    left_types.push_back(branch(cls_left_type_branches_));
    right_types.push_back(branch(cls_right_type_branches_));
    if (is_training() || options_.pred_mask) masks.push_back(mask_logits(l, states, bev));
  }
  out.cls_scores = torch::stack(classes);
  if (is_training()) {
    out.lanes = out.decoder.lanes;
  } else {
    // Original behaviour: the last layer is decoded around the reference it refined, so its
    // regression is added a second time.
    const int64_t last = num_layers - 1;
    const at::Tensor states = out.query_states[last];
    out.lanes = lane_segments_from_regression(
                    run_branch(*reg_branches_[last]->as<torch::nn::ModuleList>(), states),
                    run_branch(*reg_branches_offset_[last]->as<torch::nn::ModuleList>(), states),
                    out.decoder.inter_references[last], options_.pc_range)
                    .unsqueeze(0);
  }
  out.left_type_scores = torch::stack(left_types);
  out.right_type_scores = torch::stack(right_types);
  if (!masks.empty()) out.masks = torch::stack(masks);
  return out;
}

LaneSegmentDetections LaneSegHeadImpl::decode(const LaneSegmentOutputs& outputs,
                                              int64_t sample) const {
  const int64_t last = outputs.cls_scores.size(0) - 1;
  LaneSegmentDetections d;
  d.lanes = outputs.lanes[last][sample].to(torch::kFloat);
  d.scores = outputs.cls_scores[last][sample].to(torch::kFloat).sigmoid();
  d.left_type_scores = outputs.left_type_scores[last][sample].to(torch::kFloat).sigmoid();
  d.right_type_scores = outputs.right_type_scores[last][sample].to(torch::kFloat).sigmoid();
  return d;
}

}  // namespace olv2
