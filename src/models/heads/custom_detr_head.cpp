#include "olv2/models/heads/custom_detr_head.h"

#include <torch/torch.h>

#include "olv2/assign/assigner.h"
#include "olv2/config/section_readers.h"
#include "olv2/models/heads/detr_head_losses.h"
#include "olv2/models/layers/sine_positional_encoding.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema CustomDetrHeadOptions::schema() {
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
      .optional("dropout", ratio_schema())
      .optional("ffn_dropout", ratio_schema())
      .required("train_cfg", assigner_train_cfg_schema())
      .optional("test_cfg", Schema::open_map().nullable())
      .optional("bev_range", numbers_schema());
  declare_detr_loss_keys(schema);
  return schema;
}

CustomDetrHeadOptions CustomDetrHeadOptions::from_config(const ConfigNode& section) {
  CustomDetrHeadOptions o;
  const bool lane = section.at("object_type").as_string() == "lane";
  o.object_type = lane ? DetrObjectType::kLane : DetrObjectType::kBox;
  o.num_classes = section.at("num_classes").as_int();
  o.in_channels = section.at("in_channels").as_int();
  o.num_query = section.at("num_query").as_int();
  o.num_reg_dim = section.get<int64_t>("num_reg_dim", o.num_reg_dim);
  // As the original: lanes need 3 coordinates per control point, boxes exactly 4 numbers.
  if (lane ? o.num_reg_dim % 3 != 0 : o.num_reg_dim != 4) {
    throw input_error(section.where() +
                      ": num_reg_dim must be a multiple of 3 for lanes and 4 for boxes");
  }
  o.num_layers = section.get<int64_t>("num_layers", o.num_layers);
  o.feedforward_channels = section.get<int64_t>("feedforward_channels", o.feedforward_channels);
  o.embed_dims = section.get<int64_t>("embed_dims", o.embed_dims);
  o.num_heads = section.get<int64_t>("num_heads", o.num_heads);
  o.dropout = section.get<double>("dropout", o.dropout);
  o.ffn_dropout = section.get<double>("ffn_dropout", o.ffn_dropout);
  read_detr_losses(section, lane ? PredictionKind::kLanePoints : PredictionKind::kBoxes, o.loss_cls,
                   o.loss_bbox, lane ? nullptr : &o.loss_iou);

  if (lane) {
    const ConfigNode* range = section.find("bev_range");
    if (range == nullptr) throw input_error(section.where() + ": a lane head needs `bev_range`");
    o.lane_range = fixed_numbers<6>(*range);
  }
  o.assigner = read_train_cfg_assigner(
      section, lane ? AssignedObjects::kLanes : AssignedObjects::kBoxes, nullptr);
  return o;
}

std::shared_ptr<ObjectHeadImpl> CustomDetrHeadOptions::build() const {
  return std::make_shared<CustomDetrHeadImpl>(*this);
}

std::optional<BevRange> CustomDetrHeadOptions::bev_range() const {
  if (object_type == DetrObjectType::kBox) return std::nullopt;
  return lane_range;
}

namespace {

DetrTransformerOptions transformer_options(const CustomDetrHeadOptions& head) {
  DetrTransformerOptions options;
  for (TransformerLayerOptions* layer : {&options.encoder_layer, &options.decoder_layer}) {
    layer->multihead.embed_dims = head.embed_dims;
    layer->multihead.num_heads = head.num_heads;
    layer->multihead.dropout = head.dropout;
    layer->ffn.embed_dims = head.embed_dims;
    layer->ffn.feedforward_channels = head.feedforward_channels;
    layer->ffn.num_fcs = 2;
    // Original behaviour: the deprecated `ffn_dropout` argument overrides `ffn_drop=0.`.
    layer->ffn.ffn_drop = head.ffn_dropout;
  }
  options.num_encoder_layers = head.num_layers;
  options.num_decoder_layers = head.num_layers;
  return options;
}

void check_options(const CustomDetrHeadOptions& options) {
  if (options.object_type == DetrObjectType::kLane && options.num_reg_dim % 3 != 0) {
    throw input_error("CustomDETRHead: lane num_reg_dim must be a multiple of 3, got " +
                      std::to_string(options.num_reg_dim));
  }
  if (options.object_type == DetrObjectType::kBox && options.num_reg_dim != 4) {
    throw input_error("CustomDETRHead: bbox heads regress 4 values, got num_reg_dim " +
                      std::to_string(options.num_reg_dim));
  }
  const AssignedObjects objects = options.object_type == DetrObjectType::kLane
                                      ? AssignedObjects::kLanes
                                      : AssignedObjects::kBoxes;
  if (options.assigner == nullptr || options.assigner->objects() != objects) {
    throw input_error(std::string("CustomDETRHead: a ") +
                      (objects == AssignedObjects::kLanes ? "lane" : "box") +
                      " head needs an assigner of its objects");
  }
}

}  // namespace

CustomDetrHeadImpl::CustomDetrHeadImpl(const CustomDetrHeadOptions& options) : options_(options) {
  check_options(options);
  assigner_ = options.assigner->build();
  transformer_ = register_module("transformer", DetrTransformer(transformer_options(options)));
  input_proj_ = register_module("input_proj", torch::nn::Conv2d(torch::nn::Conv2dOptions(
                                                  options.in_channels, options.embed_dims, 1)));
  fc_cls_ = register_module("fc_cls", torch::nn::Linear(options.embed_dims, options.num_classes));
  FfnOptions reg_ffn;
  reg_ffn.embed_dims = options.embed_dims;
  reg_ffn.feedforward_channels = options.embed_dims;
  reg_ffn.num_fcs = options.num_reg_fcs;
  reg_ffn.ffn_drop = 0.0;
  reg_ffn.add_identity = false;
  reg_ffn_ = register_module("reg_ffn", Ffn(reg_ffn));
  fc_reg_ = register_module("fc_reg", torch::nn::Linear(options.embed_dims, options.num_reg_dim));
  query_embedding_ = register_module("query_embedding",
                                     torch::nn::Embedding(options.num_query, options.embed_dims));
}

void CustomDetrHeadImpl::set_dropout(double p) { transformer_->set_dropout(p); }

at::Tensor CustomDetrHeadImpl::padding_mask(const at::Tensor& x,
                                            const DetrImageGeometry& geometry) const {
  const int64_t batch = x.size(0);
  const auto options = x.options();
  at::Tensor mask;
  if (options_.object_type == DetrObjectType::kLane) {
    mask = torch::zeros({batch, x.size(2), x.size(3)}, options);
  } else {
    if (static_cast<int64_t>(geometry.img_shapes.size()) != batch) {
      throw runtime_error("CustomDETRHead: " + std::to_string(geometry.img_shapes.size()) +
                          " image shapes for a batch of " + std::to_string(batch));
    }
    const auto [pad_h, pad_w] = geometry.batch_input_shape;
    mask = torch::ones({batch, pad_h, pad_w}, options);
    for (int64_t b = 0; b < batch; ++b) {
      const auto [img_h, img_w] = geometry.img_shapes[b];
      mask[b].slice(0, 0, img_h).slice(1, 0, img_w).zero_();
    }
  }
  namespace F = torch::nn::functional;
  return F::interpolate(mask.unsqueeze(1), F::InterpolateFuncOptions()
                                               .size(std::vector<int64_t>{x.size(2), x.size(3)})
                                               .mode(torch::kNearest))
      .to(torch::kBool)
      .squeeze(1);
}

HeadOutputs CustomDetrHeadImpl::forward(const std::vector<at::Tensor>& levels,
                                        const DetrImageGeometry& geometry) {
  if (levels.size() != 1) {
    throw input_error("CustomDETRHead: the head takes one feature level, it was given " +
                      std::to_string(levels.size()) + " (the neck's num_outs)");
  }
  return forward(levels.front(), geometry);
}

HeadOutputs CustomDetrHeadImpl::forward(const at::Tensor& x, const DetrImageGeometry& geometry) {
  const at::Tensor mask = padding_mask(x, geometry);  // [B, H, W], true = padded
  const at::Tensor projected = input_proj_(x);
  SinePositionalEncodingOptions pos_options;
  pos_options.num_feats = options_.embed_dims / 2;
  pos_options.normalize = true;
  const at::Tensor pos = sine_positional_encoding(mask, pos_options);
  auto [dec, memory] = transformer_(projected, mask, query_embedding_->weight, pos);
  HeadOutputs outputs;
  outputs.cls_scores = fc_cls_(dec);
  outputs.reg_preds = fc_reg_(torch::relu(reg_ffn_(dec))).sigmoid();
  outputs.query_states = dec;
  outputs.intermediates["memory"] = memory;
  return outputs;
}

}  // namespace olv2
