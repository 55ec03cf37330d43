#include "olv2/models/bev/bevformer_constructer.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"
#include "olv2/util/compat.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema BevFormerConstructerOptions::schema() {
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
      .required("encoder", BevFormerEncoderOptions::schema())
      .required("positional_encoding", LearnedPositionalEncodingOptions::schema());
  return schema;
}

BevFormerConstructerOptions BevFormerConstructerOptions::from_config(const ConfigNode& section,
                                                                     const std::string& scope) {
  BevFormerConstructerOptions o;
  o.embed_dims = section.get<int64_t>("embed_dims", o.embed_dims);
  o.num_feature_levels = section.get<int64_t>("num_feature_levels", o.num_feature_levels);
  o.num_cams = section.get<int64_t>("num_cams", o.num_cams);
  o.bev_h = section.at("bev_h").as_int();
  o.bev_w = section.at("bev_w").as_int();
  o.use_can_bus = section.get<bool>("use_can_bus", o.use_can_bus);
  o.can_bus_norm = section.get<bool>("can_bus_norm", o.can_bus_norm);
  o.use_cams_embeds = section.get<bool>("use_cams_embeds", o.use_cams_embeds);
  o.encoder = BevFormerEncoderOptions::from_config(section.at("encoder"), scope);
  o.positional_encoding =
      LearnedPositionalEncodingOptions::from_config(section.at("positional_encoding"));
  return o;
}

std::shared_ptr<BevConstructorImpl> BevFormerConstructerOptions::build(bool checkpointed) const {
  BevFormerConstructerOptions options = *this;
  options.encoder.checkpoint_layers = checkpointed;
  return std::make_shared<BevFormerConstructerImpl>(options);
}

BevFormerConstructerImpl::BevFormerConstructerImpl(const BevFormerConstructerOptions& options)
    : options_(options) {
  check_options();
  const int64_t dims = options.embed_dims;
  encoder_ = register_module("encoder", BevFormerEncoder(options.encoder));
  positional_encoding_ = register_module("positional_encoding",
                                         LearnedPositionalEncoding(options.positional_encoding));
  bev_embedding_ =
      register_module("bev_embedding", torch::nn::Embedding(options.bev_h * options.bev_w, dims));
  level_embeds_ =
      register_parameter("level_embeds", torch::empty({options.num_feature_levels, dims}));
  cams_embeds_ = register_parameter("cams_embeds", torch::empty({options.num_cams, dims}));
  can_bus_fc1_ = torch::nn::Linear(18, dims / 2);
  can_bus_fc2_ = torch::nn::Linear(dims / 2, dims);
  torch::nn::Sequential mlp;
  mlp->push_back("0", can_bus_fc1_);
  mlp->push_back("1", torch::nn::ReLU());
  mlp->push_back("2", can_bus_fc2_);
  mlp->push_back("3", torch::nn::ReLU());
  if (options.can_bus_norm) {
    can_bus_layer_norm_ = torch::nn::LayerNorm(torch::nn::LayerNormOptions({dims}));
    mlp->push_back("norm", can_bus_layer_norm_);
  }
  can_bus_mlp_ = register_module("can_bus_mlp", mlp);
  reset_parameters();
}

void BevFormerConstructerImpl::check_options() const {
  const BevFormerConstructerOptions& o = options_;
  const BevFormerLayerOptions& layer = o.encoder.layer;
  const bool dims_agree = layer.self_attention.embed_dims == o.embed_dims &&
                          layer.cross_attention.embed_dims == o.embed_dims &&
                          layer.cross_attention.deformable_attention.embed_dims == o.embed_dims &&
                          layer.ffn.embed_dims == o.embed_dims &&
                          2 * o.positional_encoding.num_feats == o.embed_dims;
  if (!dims_agree || o.embed_dims % 2 != 0) {
    throw input_error("BEVFormerConstructer: embed_dims " + std::to_string(o.embed_dims) +
                      " must be even and equal the attentions', the FFN's and twice the "
                      "positional encoding's num_feats");
  }
  if (layer.cross_attention.num_cams != o.num_cams ||
      layer.cross_attention.deformable_attention.num_levels != o.num_feature_levels) {
    throw input_error("BEVFormerConstructer: the spatial cross-attention must have num_cams " +
                      std::to_string(o.num_cams) + " and num_levels " +
                      std::to_string(o.num_feature_levels));
  }
  if (o.positional_encoding.row_num_embed < o.bev_h ||
      o.positional_encoding.col_num_embed < o.bev_w) {
    throw input_error("BEVFormerConstructer: the positional encoding needs at least bev_h " +
                      std::to_string(o.bev_h) + " rows and bev_w " + std::to_string(o.bev_w) +
                      " columns");
  }
}

void BevFormerConstructerImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  for (at::Tensor& parameter : parameters()) {
    if (parameter.dim() > 1) torch::nn::init::xavier_uniform_(parameter);
  }
  for (BevFormerLayer& layer : encoder_->layers()) {
    layer->self_attention()->reset_parameters();
    layer->cross_attention()->deformable_attention()->reset_parameters();
  }
  level_embeds_.normal_();
  cams_embeds_.normal_();
  // The original's xavier_init of can_bus_mlp is a no-op (a Sequential has no `weight`), so
  // its biases keep PyTorch's defaults.
}

at::Tensor BevFormerConstructerImpl::can_bus_embedding(const at::Tensor& can_bus) {
  at::Tensor x = torch::relu(can_bus_fc1_->forward(can_bus.to(torch::kFloat)));
  x = torch::relu(can_bus_fc2_->forward(x));
  if (!can_bus_layer_norm_) return x;
  return compat::layer_norm(x, can_bus_layer_norm_->weight, can_bus_layer_norm_->bias,
                            can_bus_layer_norm_->options.eps());
}

at::Tensor BevFormerConstructerImpl::image_tokens(const std::vector<at::Tensor>& mlvl_feats,
                                                  SpatialShapes& spatial_shapes) const {
  std::vector<at::Tensor> tokens;
  for (size_t level = 0; level < mlvl_feats.size(); ++level) {
    const at::Tensor& feat = mlvl_feats[level];  // [B, N_cam, C, h, w]
    spatial_shapes.emplace_back(feat.size(3), feat.size(4));
    at::Tensor level_tokens = feat.flatten(3).transpose(2, 3);  // [B, N_cam, h*w, C]
    if (options_.use_cams_embeds) {
      level_tokens =
          level_tokens + cams_embeds_.to(feat.dtype()).view({1, options_.num_cams, 1, -1});
    }
    tokens.push_back(
        level_tokens +
        level_embeds_[static_cast<int64_t>(level)].to(feat.dtype()).view({1, 1, 1, -1}));
  }
  return torch::cat(tokens, 2);
}

at::Tensor BevFormerConstructerImpl::forward(const std::vector<at::Tensor>& mlvl_feats,
                                             const at::Tensor& lidar2img,
                                             std::pair<int64_t, int64_t> img_hw,
                                             const at::Tensor& can_bus) {
  if (static_cast<int64_t>(mlvl_feats.size()) != options_.num_feature_levels) {
    throw runtime_error("BEVFormerConstructer: " + std::to_string(mlvl_feats.size()) +
                        " feature levels, expected " + std::to_string(options_.num_feature_levels));
  }
  const at::Tensor& first = mlvl_feats.front();
  const int64_t batch = first.size(0);
  for (const at::Tensor& feat : mlvl_feats) {
    if (feat.dim() != 5 || feat.size(0) != batch || feat.size(1) != options_.num_cams ||
        feat.size(2) != options_.embed_dims) {
      throw runtime_error("BEVFormerConstructer: every feature level must be [" +
                          std::to_string(batch) + ", " + std::to_string(options_.num_cams) + ", " +
                          std::to_string(options_.embed_dims) + ", h, w]");
    }
  }
  if (can_bus.dim() != 2 || can_bus.size(0) != batch || can_bus.size(1) != 18) {
    throw runtime_error("BEVFormerConstructer: can_bus must be [" + std::to_string(batch) +
                        ", 18]");
  }
  const int64_t bev_h = options_.bev_h, bev_w = options_.bev_w;
  const auto dtype = first.scalar_type();

  at::Tensor queries = bev_embedding_->weight.to(dtype).unsqueeze(0).expand(
      {batch, bev_h * bev_w, options_.embed_dims});
  if (options_.use_can_bus) queries = queries + can_bus_embedding(can_bus).unsqueeze(1);
  const at::Tensor bev_mask = torch::zeros({batch, bev_h, bev_w}, first.options());
  const at::Tensor bev_pos =
      positional_encoding_->forward(bev_mask).to(dtype).flatten(2).transpose(1, 2);

  SpatialShapes spatial_shapes;
  const at::Tensor tokens = image_tokens(mlvl_feats, spatial_shapes);
  return encoder_->forward(queries, bev_pos, {bev_h, bev_w}, tokens, spatial_shapes, lidar2img,
                           img_hw);
}

at::Tensor BevFormerConstructerImpl::forward(const std::vector<at::Tensor>& levels,
                                             const Batch& batch) {
  if (levels.empty()) throw runtime_error("BEVFormerConstructer: no feature level");
  const at::Tensor lidar2img = batch.lidar2img.to(levels[0].device(), torch::kFloat);
  const at::Tensor can_bus = batch.can_bus.to(levels[0].device(), torch::kFloat);
  const std::array<int64_t, 3>& shape = batch.metas.at(0).img_shape.at(0);
  const at::Tensor flat = forward(levels, lidar2img, {shape[0], shape[1]}, can_bus);
  return flat.transpose(1, 2).view({flat.size(0), flat.size(2), options_.bev_h, options_.bev_w});
}

std::shared_ptr<const BevConstructorOptions> toponet_bevformer_constructer() {
  auto options = std::make_shared<BevFormerConstructerOptions>();
  options->encoder.layer.self_attention.code = TemporalSelfAttentionCode::kTopoNet;
  return options;
}

}  // namespace olv2
