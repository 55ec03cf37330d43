#include "olv2/models/bev/bevformer_encoder.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"
#include "olv2/models/activation_checkpoint.h"
#include "olv2/models/layers/transformer_layer_config.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema BevFormerEncoderOptions::schema() {
  return layer_sequence_schema("BEVFormerEncoder", BevFormerLayerOptions::schema());
}

BevFormerEncoderOptions BevFormerEncoderOptions::from_config(const ConfigNode& section,
                                                             const std::string& scope) {
  require_flag(section, "return_intermediate", false, "the constructor returns the last layer");
  BevFormerEncoderOptions o;
  o.num_layers = section.at("num_layers").as_int();
  o.num_points_in_pillar = section.get<int64_t>("num_points_in_pillar", o.num_points_in_pillar);
  if (const ConfigNode* range = section.find("pc_range")) o.pc_range = fixed_numbers<6>(*range);
  o.layer = BevFormerLayerOptions::from_config(section.at("transformerlayers"), scope);
  return o;
}

BevFormerEncoderImpl::BevFormerEncoderImpl(const BevFormerEncoderOptions& options)
    : options_(options) {
  if (options.num_layers < 1 || options.num_points_in_pillar < 1) {
    throw input_error("BEVFormerEncoder: num_layers and num_points_in_pillar must be positive");
  }
  layers_ = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < options.num_layers; ++i) {
    layer_modules_.emplace_back(options.layer);
    layers_->push_back(layer_modules_.back());
  }
}

void BevFormerEncoderImpl::set_dropout(double p) {
  for (BevFormerLayer& layer : layer_modules_) layer->set_dropout(p);
}

at::Tensor BevFormerEncoderImpl::forward(const at::Tensor& bev_query, const at::Tensor& bev_pos,
                                         std::pair<int64_t, int64_t> bev_hw,
                                         const at::Tensor& tokens,
                                         const SpatialShapes& spatial_shapes,
                                         const at::Tensor& lidar2img,
                                         std::pair<int64_t, int64_t> img_hw) {
  const auto [bev_h, bev_w] = bev_hw;
  const int64_t batch = bev_query.size(0);
  if (bev_query.size(1) != bev_h * bev_w) {
    throw runtime_error("BEVFormerEncoder: " + std::to_string(bev_query.size(1)) +
                        " queries for a " + std::to_string(bev_h) + " x " + std::to_string(bev_w) +
                        " BEV");
  }
  const auto float_options = torch::TensorOptions().dtype(torch::kFloat).device(bev_query.device());
  const BevRange& range = options_.pc_range;
  const at::Tensor ref_3d = bev_reference_points_3d(
      bev_h, bev_w, range[5] - range[2], options_.num_points_in_pillar, batch, float_options);
  const at::Tensor ref_2d = bev_reference_points_2d(bev_h, bev_w, batch, float_options);

  BevFormerLayerInputs inputs;
  inputs.bev_pos = bev_pos;
  // No previous BEV: both TSA queue entries of a sample use the unshifted cell centres.
  inputs.hybrid_ref_2d =
      torch::stack({ref_2d, ref_2d}, 1).reshape({batch * 2, bev_h * bev_w, 1, 2});
  inputs.bev_shape = {{bev_h, bev_w}};
  inputs.tokens = tokens;
  inputs.spatial_shapes = spatial_shapes;
  inputs.camera_points = project_reference_points(ref_3d, range, lidar2img, img_hw);

  at::Tensor query = bev_query;
  const bool recompute =
      options_.checkpoint_layers && is_training() && torch::GradMode::is_enabled();
  for (BevFormerLayer& layer : layer_modules_) {
    if (!recompute) {
      query = layer->forward(query, inputs);
      continue;
    }
    // The segment outlives this call (it runs again in backward): it holds its own copies.
    auto segment = [layer, inputs](const std::vector<at::Tensor>& in) mutable {
      BevFormerLayerInputs with_grad = inputs;
      with_grad.bev_pos = in[1];
      with_grad.tokens = in[2];
      return std::vector<at::Tensor>{layer->forward(in[0], with_grad)};
    };
    query = checkpoint(segment, {query, inputs.bev_pos, inputs.tokens}, layer->parameters())[0];
  }
  return query;
}

}  // namespace olv2
