#include "olv2/models/heads/te_deformable_detr_head.h"

#include <torch/torch.h>

#include <cmath>
#include <memory>

#include "olv2/config/section_readers.h"
#include "olv2/models/heads/detr_head_losses.h"
#include "olv2/models/layers/multi_scale_deformable_attention.h"
#include "olv2/models/layers/transformer_layer_config.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema TeDeformableDetrHeadOptions::schema() {
  Schema encoder = layer_sequence_schema(
      "DetrTransformerEncoder",
      transformer_layer_schema("BaseTransformerLayer", attention_list_schema()));
  Schema decoder = layer_sequence_schema(
      "DeformableDetrTransformerDecoder",
      transformer_layer_schema("CustomDetrTransformerDecoderLayer", attention_list_schema(),
                               {"DetrTransformerDecoderLayer"}));
  Schema transformer = typed_schema("DeformableDetrTransformer");
  transformer.required("encoder", encoder)
      .required("decoder", decoder)
      .optional("num_feature_levels", Schema::integer());
  Schema test_cfg = Schema::map();
  test_cfg.optional("max_per_img", Schema::integer());
  Schema schema = typed_schema("TEDeformableDETRHead", {"CustomDeformableDETRHead"});
  schema.required("num_query", Schema::integer())
      .required("num_classes", Schema::integer())
      .required("in_channels", Schema::integer())
      .optional("num_reg_fcs", Schema::integer())
      .optional("sync_cls_avg_factor", Schema::boolean())
      .optional("with_box_refine", Schema::boolean())
      .optional("as_two_stage", Schema::boolean())
      .required("transformer", transformer)
      .required("positional_encoding", SinePositionalEncodingOptions::schema())
      .optional("test_cfg", test_cfg.nullable())
      .optional("train_cfg", assigner_train_cfg_schema());
  declare_detr_loss_keys(schema);
  return schema;
}

TeDeformableDetrHeadOptions TeDeformableDetrHeadOptions::from_config(const ConfigNode& section) {
  TeDeformableDetrHeadOptions o;
  o.num_query = section.at("num_query").as_int();
  o.num_classes = section.at("num_classes").as_int();
  o.in_channels = section.at("in_channels").as_int();
  o.num_reg_fcs = section.get<int64_t>("num_reg_fcs", o.num_reg_fcs);
  o.sync_cls_avg_factor = section.get<bool>("sync_cls_avg_factor", o.sync_cls_avg_factor);
  o.with_box_refine = section.get<bool>("with_box_refine", o.with_box_refine);
  require_flag(section, "as_two_stage", false, "the original's configs never use two stages");

  const ConfigNode& transformer = section.at("transformer");
  o.num_feature_levels = transformer.get<int64_t>("num_feature_levels", o.num_feature_levels);
  const ConfigNode& encoder = transformer.at("encoder");
  o.num_encoder_layers = encoder.at("num_layers").as_int();
  const ConfigNode& encoder_layer = encoder.at("transformerlayers");
  require_operation_order(encoder_layer, {"self_attn", "norm", "ffn", "norm"});

  const ConfigNode& decoder = transformer.at("decoder");
  require_flag(decoder, "return_intermediate", true, "every decoder layer has its loss");
  o.num_decoder_layers = decoder.at("num_layers").as_int();
  const ConfigNode& decoder_layer = decoder.at("transformerlayers");
  const DecoderLayerAttentions d = DecoderLayerAttentions::from_config(decoder_layer);
  o.embed_dims = d.embed_dims;
  o.num_heads = d.num_heads;
  o.attention_dropout = d.attention_dropout;
  o.num_points = d.num_points;
  o.msda_dropout = d.msda_dropout;
  for (const ConfigNode* entry :
       {&attention_entry(encoder_layer, 0), &attention_entry(decoder_layer, 1)}) {
    const auto msda = read_attention<MultiScaleDeformableAttentionOptions>(
        *entry, "a multi-scale deformable attention");
    if (msda.num_levels != o.num_feature_levels || msda.num_points != o.num_points ||
        msda.num_heads != o.num_heads || msda.dropout != o.msda_dropout) {
      throw input_error(entry->where() +
                        ": the encoder's and decoder's deformable attentions must agree on "
                        "num_levels (= transformer.num_feature_levels), num_points, num_heads "
                        "and dropout");
    }
  }
  const FfnOptions ffn = FfnOptions::from_layer_config(
      decoder_layer, FfnOptions{o.embed_dims, o.feedforward_channels, 2, o.ffn_drop});
  const FfnOptions encoder_ffn = FfnOptions::from_layer_config(encoder_layer, ffn);
  if (encoder_ffn.feedforward_channels != ffn.feedforward_channels ||
      encoder_ffn.ffn_drop != ffn.ffn_drop || ffn.num_fcs != 2) {
    throw input_error(encoder_layer.where() +
                      ": the encoder's and decoder's FFNs must agree (two layers)");
  }
  o.feedforward_channels = ffn.feedforward_channels;
  o.ffn_drop = ffn.ffn_drop;

  o.positional_encoding =
      SinePositionalEncodingOptions::from_config(section.at("positional_encoding"));
  read_detr_losses(section, PredictionKind::kBoxes, o.loss_cls, o.loss_bbox, &o.loss_iou);
  o.assigner = read_train_cfg_assigner(section, AssignedObjects::kBoxes, o.assigner);
  return o;
}

std::shared_ptr<ObjectHeadImpl> TeDeformableDetrHeadOptions::build() const {
  return std::make_shared<TeDeformableDetrHeadImpl>(*this);
}

namespace {

DeformableDetrTransformerOptions te_transformer_options(const TeDeformableDetrHeadOptions& head) {
  DeformableDetrTransformerOptions options;
  options.embed_dims = head.embed_dims;
  options.num_feature_levels = head.num_feature_levels;
  options.num_encoder_layers = head.num_encoder_layers;
  options.num_decoder_layers = head.num_decoder_layers;
  for (TransformerLayerOptions* layer : {&options.encoder_layer, &options.decoder_layer}) {
    layer->multihead.embed_dims = head.embed_dims;
    layer->multihead.num_heads = head.num_heads;
    layer->multihead.dropout = head.attention_dropout;
    layer->deformable.embed_dims = head.embed_dims;
    layer->deformable.num_heads = head.num_heads;
    layer->deformable.num_levels = head.num_feature_levels;
    layer->deformable.num_points = head.num_points;
    layer->deformable.dropout = head.msda_dropout;
    layer->deformable.batch_first = false;
    layer->ffn.embed_dims = head.embed_dims;
    layer->ffn.feedforward_channels = head.feedforward_channels;
    layer->ffn.num_fcs = 2;
    layer->ffn.ffn_drop = head.ffn_drop;
  }
  return options;
}

torch::nn::Sequential te_reg_branch(const TeDeformableDetrHeadOptions& options) {
  torch::nn::Sequential branch;
  for (int64_t i = 0; i < options.num_reg_fcs; ++i) {
    branch->push_back(torch::nn::Linear(options.embed_dims, options.embed_dims));
    branch->push_back(torch::nn::ReLU());
  }
  branch->push_back(torch::nn::Linear(options.embed_dims, 4));
  return branch;
}

void te_check_options(const TeDeformableDetrHeadOptions& options) {
  if (options.in_channels != options.embed_dims) {
    throw input_error("TEDeformableDETRHead: in_channels " + std::to_string(options.in_channels) +
                      " must equal embed_dims " + std::to_string(options.embed_dims) +
                      " (the head has no input projection)");
  }
  if (options.positional_encoding.num_feats * 2 != options.embed_dims) {
    throw input_error("TEDeformableDETRHead: positional_encoding.num_feats " +
                      std::to_string(options.positional_encoding.num_feats) +
                      " must be half of embed_dims " + std::to_string(options.embed_dims));
  }
}

}  // namespace

TeDeformableDetrHeadImpl::TeDeformableDetrHeadImpl(const TeDeformableDetrHeadOptions& options)
    : options_(options) {
  te_check_options(options);
  transformer_ =
      register_module("transformer", DeformableDetrTransformer(te_transformer_options(options)));
  cls_branches_ = register_module("cls_branches", torch::nn::ModuleList());
  reg_branches_ = register_module("reg_branches", torch::nn::ModuleList());
  // Without refinement every decoder layer shares the first layer's branches.
  for (int64_t i = 0; i < options.num_decoder_layers; ++i) {
    if (i == 0 || options.with_box_refine) {
      cls_branches_->push_back(torch::nn::Linear(options.embed_dims, options.num_classes));
      reg_branches_->push_back(te_reg_branch(options));
    } else {
      const std::shared_ptr<torch::nn::Module> cls = cls_branches_[0];
      const std::shared_ptr<torch::nn::Module> reg = reg_branches_[0];
      cls_branches_->push_back(cls);
      reg_branches_->push_back(reg);
    }
  }
  query_embedding_ = register_module(
      "query_embedding", torch::nn::Embedding(options.num_query, 2 * options.embed_dims));
  reset_parameters();
}

void TeDeformableDetrHeadImpl::set_dropout(double p) { transformer_->set_dropout(p); }

void TeDeformableDetrHeadImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  transformer_->reset_parameters();
  const double prior_bias = -std::log((1 - 0.01) / 0.01);
  for (auto& branch : *cls_branches_) branch->as<torch::nn::Linear>()->bias.fill_(prior_bias);
  const auto last_linear = [](const std::shared_ptr<torch::nn::Module>& branch) {
    auto* sequential = branch->as<torch::nn::Sequential>();
    return sequential->ptr(sequential->size() - 1)->as<torch::nn::Linear>();
  };
  for (auto& branch : *reg_branches_) {
    last_linear(branch)->weight.zero_();
    last_linear(branch)->bias.zero_();
  }
  last_linear(reg_branches_[0])->bias.slice(0, 2).fill_(-2.0);
}

at::Tensor TeDeformableDetrHeadImpl::regress(int64_t layer, const at::Tensor& states) const {
  return reg_branches_->ptr(layer)->as<torch::nn::Sequential>()->forward(states);
}

std::vector<at::Tensor> TeDeformableDetrHeadImpl::level_masks(
    const std::vector<at::Tensor>& mlvl_feats, const DetrImageGeometry& geometry) const {
  const int64_t batch = mlvl_feats.at(0).size(0);
  if (static_cast<int64_t>(geometry.img_shapes.size()) != batch) {
    throw runtime_error("TEDeformableDETRHead: " + std::to_string(geometry.img_shapes.size()) +
                        " image shapes for a batch of " + std::to_string(batch));
  }
  std::vector<int64_t> heights, widths;
  for (const auto& [h, w] : geometry.img_shapes) {
    heights.push_back(h);
    widths.push_back(w);
  }
  const auto [pad_h, pad_w] = geometry.batch_input_shape;
  const auto options = torch::TensorOptions().dtype(torch::kLong).device(mlvl_feats[0].device());
  const at::Tensor rows = torch::arange(pad_h, options).view({1, -1, 1});
  const at::Tensor cols = torch::arange(pad_w, options).view({1, 1, -1});
  const at::Tensor image_mask = (rows >= torch::tensor(heights, options).view({-1, 1, 1})) |
                                (cols >= torch::tensor(widths, options).view({-1, 1, 1}));
  namespace F = torch::nn::functional;
  std::vector<at::Tensor> masks;
  for (const at::Tensor& feat : mlvl_feats) {
    masks.push_back(F::interpolate(image_mask.unsqueeze(1).to(torch::kFloat),
                                   F::InterpolateFuncOptions()
                                       .size(std::vector<int64_t>{feat.size(2), feat.size(3)})
                                       .mode(torch::kNearest))
                        .squeeze(1)
                        .to(torch::kBool));
  }
  return masks;
}

HeadOutputs TeDeformableDetrHeadImpl::forward(const std::vector<at::Tensor>& mlvl_feats,
                                              const DetrImageGeometry& geometry) {
  const std::vector<at::Tensor> masks = level_masks(mlvl_feats, geometry);
  std::vector<at::Tensor> pos;
  for (const at::Tensor& mask : masks) {
    pos.push_back(sine_positional_encoding(mask, options_.positional_encoding));
  }
  RegressionBranch refine;
  if (options_.with_box_refine) {
    refine = [this](int64_t layer, const at::Tensor& states) { return regress(layer, states); };
  }
  const DeformableDetrTransformerOutputs decoded =
      transformer_(mlvl_feats, masks, query_embedding_->weight, pos, refine);

  HeadOutputs out;
  out.intermediates["inter_states"] = decoded.inter_states;
  out.intermediates["init_reference"] = decoded.init_reference;
  out.intermediates["inter_references"] = decoded.inter_references;
  out.query_states = decoded.inter_states.permute({0, 2, 1, 3});
  std::vector<at::Tensor> classes, boxes;
  for (int64_t l = 0; l < out.query_states.size(0); ++l) {
    const at::Tensor states = out.query_states[l];
    const at::Tensor reference =
        inverse_sigmoid(l == 0 ? decoded.init_reference : decoded.inter_references[l - 1]);
    const at::Tensor delta = regress(l, states).to(torch::kFloat);
    // Boxes in fp32 under autocast, like the references. The initial reference is a point: only
    // the centre gets it.
    const at::Tensor logits =
        reference.size(-1) == 4
            ? delta + reference
            : torch::cat({delta.slice(-1, 0, 2) + reference, delta.slice(-1, 2)}, -1);
    classes.push_back(cls_branches_[l]->as<torch::nn::Linear>()->forward(states));
    boxes.push_back(logits.sigmoid());
  }
  out.cls_scores = torch::stack(classes);
  out.reg_preds = torch::stack(boxes);
  return out;
}

}  // namespace olv2
