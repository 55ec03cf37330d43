#include "olv2/models/heads/toponet_head.h"

#include <torch/torch.h>

#include "olv2/assign/lane_hungarian_assigner.h"
#include "olv2/assign/match_costs.h"
#include "olv2/config/section_readers.h"
#include "olv2/losses/focal_loss.h"
#include "olv2/losses/l1_loss.h"
#include "olv2/models/heads/lane_branches.h"
#include "olv2/models/heads/lane_regression.h"
#include "olv2/models/layers/deformable_detr_transformer.h"
#include "olv2/models/layers/transformer_layer_config.h"
#include "olv2/util/error.h"

namespace olv2 {

TopoNetHeadOptions::TopoNetHeadOptions()
    : loss_cls(weighted_loss<FocalLoss>(1.5)), loss_bbox(weighted_loss<L1Loss>(0.025)) {
  auto lane_assigner = std::make_shared<LaneHungarianAssigner3DOptions>();
  auto cls_cost = std::make_shared<FocalLossCost>();
  cls_cost->weight = 1.5;
  lane_assigner->cls_cost = cls_cost;
  auto reg_cost = std::make_shared<LaneL1Cost>();
  reg_cost->weight = 0.025;
  lane_assigner->reg_cost = reg_cost;
  lane_assigner->normalize = false;  // costs in metres
  assigner = lane_assigner;
  transformer.self_attention.embed_dims = 256;
  transformer.self_attention.num_heads = 8;
  transformer.cross_attention.num_levels = 1;
  transformer.ffn.edge_weight = 0.6;
  lclc_head.shared_param = false;
  lcte_head.shared_param = false;
}

Schema TopoNetHeadOptions::schema() {
  Schema layer = typed_schema("SGNNDecoderLayer");
  layer.required("attn_cfgs", attention_list_schema())
      .required("ffn_cfgs", SceneGraphFfnOptions::schema())
      .required("operation_order", Schema::sequence(Schema::string()));
  Schema transformer = typed_schema("TopoNetTransformerDecoderOnly");
  transformer.optional("embed_dims", Schema::integer())
      .optional("pts_dim", Schema::integer())
      .required("decoder", layer_sequence_schema("TopoNetSGNNDecoder", layer));
  Schema coder = typed_schema("LanePseudoCoder");
  coder.optional("denormalize", Schema::boolean());
  Schema schema = typed_schema("TopoNetHead");
  schema.required("num_classes", Schema::integer())
      .required("in_channels", Schema::integer())
      .optional("num_query", Schema::integer().range(1, 100000))
      .optional("bev_h", Schema::integer())
      .optional("bev_w", Schema::integer())
      .required("pc_range", numbers_schema())
      .optional("pts_dim", Schema::integer())
      .optional("sync_cls_avg_factor", Schema::boolean())
      .optional("code_size", Schema::integer())
      .optional("code_weights", numbers_schema())
      .optional("num_reg_fcs", Schema::integer().range(1, 16))
      .required("transformer", transformer)
      .required("lclc_head", RelationshipHeadOptions::schema_for("SingleLayerRelationshipHead"))
      .required("lcte_head", RelationshipHeadOptions::schema_for("SingleLayerRelationshipHead"))
      .required("bbox_coder", coder)
      .optional("loss_cls", loss_registry().schema())
      .optional("loss_bbox", loss_registry().schema())
      .optional("train_cfg", assigner_train_cfg_schema())
      .optional("test_cfg", Schema::open_map().nullable());
  return schema;
}

TopoNetHeadOptions TopoNetHeadOptions::from_config(const ConfigNode& section) {
  TopoNetHeadOptions o;
  o.num_classes = section.at("num_classes").as_int();
  o.in_channels = section.at("in_channels").as_int();
  o.num_query = section.get<int64_t>("num_query", o.num_query);
  o.bev_h = section.get<int64_t>("bev_h", o.bev_h);
  o.bev_w = section.get<int64_t>("bev_w", o.bev_w);
  o.pc_range = fixed_numbers<6>(section.at("pc_range"));
  o.pts_dim = section.get<int64_t>("pts_dim", o.pts_dim);
  if (o.pts_dim != 2 && o.pts_dim != 3) {
    throw input_error(section.at("pts_dim").where() + ": pts_dim must be 2 or 3");
  }
  o.code_size = section.get<int64_t>("code_size", 11 * o.pts_dim);
  if (o.code_size % o.pts_dim != 0) {
    throw input_error(section.at("code_size").where() + ": code_size " +
                      std::to_string(o.code_size) + " is not a whole number of points of pts_dim " +
                      std::to_string(o.pts_dim));
  }
  o.code_weights = read_code_weights(section, o.code_size);
  o.num_reg_fcs = section.get<int64_t>("num_reg_fcs", o.num_reg_fcs);
  o.sync_cls_avg_factor = section.get<bool>("sync_cls_avg_factor", o.sync_cls_avg_factor);
  require_flag(section.at("bbox_coder"), "denormalize", false, "the lanes are regressed in metres");

  const ConfigNode& transformer = section.at("transformer");
  o.transformer.embed_dims = transformer.get<int64_t>("embed_dims", o.transformer.embed_dims);
  o.transformer.pts_dim = transformer.get<int64_t>("pts_dim", o.transformer.pts_dim);
  if (o.transformer.pts_dim != o.pts_dim) {
    throw input_error(transformer.where() + ": pts_dim " + std::to_string(o.transformer.pts_dim) +
                      " differs from the head's " + std::to_string(o.pts_dim));
  }
  if (o.in_channels != o.transformer.embed_dims) {
    throw input_error(
        section.at("in_channels").where() + ": in_channels " + std::to_string(o.in_channels) +
        " differs from the transformer's embed_dims " + std::to_string(o.transformer.embed_dims));
  }
  const ConfigNode& decoder = transformer.at("decoder");
  require_flag(decoder, "return_intermediate", true, "every decoder layer has its loss");
  o.transformer.num_layers = decoder.at("num_layers").as_int();
  const ConfigNode& layer = decoder.at("transformerlayers");
  require_operation_order(layer, {"self_attn", "norm", "cross_attn", "norm", "ffn", "norm"});
  o.transformer.self_attention =
      layer_attention<MultiheadAttentionOptions>(layer, 0, "MultiheadAttention");
  o.transformer.cross_attention = layer_attention<MultiScaleDeformableAttentionOptions>(
      layer, 1, "a multi-scale deformable attention on the BEV");
  o.transformer.ffn = SceneGraphFfnOptions::from_config(layer.at("ffn_cfgs"));

  o.lclc_head = RelationshipHeadOptions::from_config(section.at("lclc_head"));
  o.lcte_head = RelationshipHeadOptions::from_config(section.at("lcte_head"));
  o.loss_cls =
      read_for_kind(loss_registry(), section, "loss_cls", PredictionKind::kClassScores, o.loss_cls);
  o.loss_bbox = read_for_kind(loss_registry(), section, "loss_bbox", PredictionKind::kLanePoints,
                              o.loss_bbox);
  o.assigner = read_train_cfg_assigner(section, AssignedObjects::kLanes, o.assigner);
  return o;
}

std::shared_ptr<ObjectHeadImpl> TopoNetHeadOptions::build() const {
  return std::make_shared<TopoNetHeadImpl>(*this);
}

namespace {

// `te_embed_branches.i`: (Linear E -> 2E, ReLU, Dropout 0.1) x (num_reg_fcs - 1), then Linear
// 2E -> E (keys `0.0.*`, `1.*` with two branch layers).
torch::nn::ModuleList te_embed_branch(int64_t embed_dims, int64_t num_reg_fcs) {
  torch::nn::ModuleList branch;
  int64_t in_channels = embed_dims;
  for (int64_t i = 0; i + 1 < num_reg_fcs; ++i) {
    branch->push_back(torch::nn::Sequential(torch::nn::Linear(in_channels, 2 * embed_dims),
                                            torch::nn::ReLU(), torch::nn::Dropout(0.1)));
    in_channels = 2 * embed_dims;
  }
  branch->push_back(torch::nn::Linear(2 * embed_dims, embed_dims));
  return branch;
}

}  // namespace

TopoNetHeadImpl::TopoNetHeadImpl(const TopoNetHeadOptions& options)
    : options_(options), assigner_(options.assigner->build()) {
  if (options.num_reg_fcs < 2) {
    throw input_error(
        "TopoNetHead: num_reg_fcs must be at least 2 (the traffic-element "
        "embedding widens to 2 x embed_dims), got " +
        std::to_string(options.num_reg_fcs));
  }
  const int64_t embed_dims = options.transformer.embed_dims;
  transformer_ = register_module("transformer", TopoNetTransformer(options.transformer));
  code_weights_ = register_parameter(
      "code_weights", torch::tensor(options.code_weights, torch::kFloat), /*requires_grad=*/false);
  cls_branches_ = register_module("cls_branches", torch::nn::ModuleList());
  reg_branches_ = register_module("reg_branches", torch::nn::ModuleList());
  lclc_branches_ = register_module("lclc_branches", torch::nn::ModuleList());
  lcte_branches_ = register_module("lcte_branches", torch::nn::ModuleList());
  te_embed_branches_ = register_module("te_embed_branches", torch::nn::ModuleList());
  for (int64_t i = 0; i < options.transformer.num_layers; ++i) {
    cls_branches_->push_back(lane_cls_branch(embed_dims, options.num_reg_fcs, options.num_classes));
    reg_branches_->push_back(lane_reg_branch(embed_dims, options.num_reg_fcs, options.code_size));
    lclc_branches_->push_back(RelationshipHead(options.lclc_head));
    lcte_branches_->push_back(RelationshipHead(options.lcte_head));
    te_embed_branches_->push_back(te_embed_branch(embed_dims, options.num_reg_fcs));
  }
  query_embedding_ =
      register_module("query_embedding", torch::nn::Embedding(options.num_query, 2 * embed_dims));
  reset_parameters();
}

void TopoNetHeadImpl::reset_parameters() {
  transformer_->reset_parameters();
  init_classification_prior(*cls_branches_);
}

void TopoNetHeadImpl::set_dropout(double p) {
  transformer_->set_dropout(p);
  for (auto& module : te_embed_branches_->modules(/*include_self=*/false)) {
    if (auto* dropout = module->as<torch::nn::Dropout>()) dropout->options.p(p);
  }
}

HeadOutputs TopoNetHeadImpl::forward(const std::vector<at::Tensor>& /*levels*/,
                                     const DetrImageGeometry& /*geometry*/) {
  throw input_error(
      "TopoNetHead decodes with the traffic-element head's outputs: it runs in a detector that "
      "gives them (TopoNet)");
}

DetrHeadLosses TopoNetHeadImpl::loss(const HeadOutputs& /*outputs*/,
                                     const std::vector<at::Tensor>& /*gt_objects*/,
                                     const std::vector<at::Tensor>& /*gt_labels*/,
                                     const DetrImageGeometry& /*geometry*/,
                                     const std::function<double(double)>& /*reduce_mean*/) const {
  throw input_error(
      "TopoNetHead scores its relations too: its losses need the relation targets and the "
      "traffic-element head's matching (TopoNet)");
}

Detections TopoNetHeadImpl::decode(const HeadOutputs& outputs, int64_t sample,
                                   std::pair<int64_t, int64_t> /*img_shape*/,
                                   const std::vector<double>& /*scale_factor*/) const {
  return last_layer_lanes(outputs, sample);
}

HeadOutputs TopoNetHeadImpl::forward_with_context(const std::vector<at::Tensor>& levels,
                                                  const DetrImageGeometry& /*geometry*/,
                                                  const TrafficElementContext& traffic_elements) {
  if (levels.size() != 1 || levels[0].dim() != 4 || levels[0].size(2) != options_.bev_h ||
      levels[0].size(3) != options_.bev_w) {
    throw input_error("TopoNetHead: expected the BEV as one level [B, C, " +
                      std::to_string(options_.bev_h) + ", " + std::to_string(options_.bev_w) +
                      "] (bev_h x bev_w), got " + std::to_string(levels.size()) + " level(s)" +
                      (levels.empty() ? "" : " of " + c10::str(levels[0].sizes())));
  }
  const at::Tensor bev_feats = levels[0].flatten(2).transpose(1, 2);  // [B, bev_h * bev_w, C]
  const at::Tensor& te_states = traffic_elements.states;
  const at::Tensor& te_cls_scores = traffic_elements.cls_scores;
  const int64_t num_layers = options_.transformer.num_layers;
  if (te_states.dim() != 4 || te_states.size(0) != num_layers) {
    throw input_error("TopoNetHead: its " + std::to_string(num_layers) +
                      " decoder layers each need the traffic-element decoder's layer of the same "
                      "index, which has " +
                      std::to_string(te_states.size(0)) + " (the two num_layers must be equal)");
  }
  std::vector<at::Tensor> embedded;
  for (int64_t l = 0; l < num_layers; ++l) {
    at::Tensor x = te_states[l];
    for (const auto& layer : *te_embed_branches_[l]->as<torch::nn::ModuleList>()) {
      x = layer->as<torch::nn::Sequential>() != nullptr
              ? layer->as<torch::nn::Sequential>()->forward(x)
              : layer->as<torch::nn::Linear>()->forward(x);
    }
    embedded.push_back(x);
  }
  const TopoNetDecoderOutputs decoded = transformer_->forward(
      bev_feats, query_embedding_->weight, options_.bev_h, options_.bev_w, *lclc_branches_,
      *lcte_branches_, torch::stack(embedded), te_cls_scores);
  const at::Tensor reference = inverse_sigmoid(decoded.init_reference);  // [B, Q, pts_dim]
  std::vector<at::Tensor> classes, lanes;
  for (int64_t l = 0; l < num_layers; ++l) {
    const at::Tensor states = decoded.inter_states[l];
    classes.push_back(run_branch(*cls_branches_[l]->as<torch::nn::ModuleList>(), states));
    lanes.push_back(
        lanes_from_regression(run_branch(*reg_branches_[l]->as<torch::nn::ModuleList>(), states),
                              reference, options_.pc_range, options_.pts_dim));
  }
  HeadOutputs out;
  out.cls_scores = torch::stack(classes);
  out.reg_preds = torch::stack(lanes);
  out.query_states = decoded.inter_states;
  out.lclc = decoded.lclc;
  out.lcte = decoded.lcte;
  return out;
}

}  // namespace olv2
