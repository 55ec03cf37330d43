#include "olv2/models/bev/ms_deformable_attention_3d.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"
#include "olv2/models/bev/offset_normalizer.h"
#include "olv2/models/layers/multi_scale_deformable_attention.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema MsDeformableAttention3dOptions::schema() {
  return MultiScaleDeformableAttentionOptions::schema("MSDeformableAttention3D");
}

MsDeformableAttention3dOptions MsDeformableAttention3dOptions::from_config(
    const ConfigNode& section) {
  MsDeformableAttention3dOptions o;
  o.embed_dims = section.get<int64_t>("embed_dims", o.embed_dims);
  o.num_heads = section.get<int64_t>("num_heads", o.num_heads);
  o.num_levels = section.get<int64_t>("num_levels", o.num_levels);
  o.num_points = section.get<int64_t>("num_points", o.num_points);
  return o;
}

MsDeformableAttention3dImpl::MsDeformableAttention3dImpl(
    const MsDeformableAttention3dOptions& options)
    : options_(options) {
  if (options.embed_dims % options.num_heads != 0) {
    throw input_error("MSDeformableAttention3D: embed_dims " + std::to_string(options.embed_dims) +
                      " is not divisible by num_heads " + std::to_string(options.num_heads));
  }
  const int64_t samples = options.num_heads * options.num_levels * options.num_points;
  sampling_offsets_ =
      register_module("sampling_offsets", torch::nn::Linear(options.embed_dims, samples * 2));
  attention_weights_ =
      register_module("attention_weights", torch::nn::Linear(options.embed_dims, samples));
  value_proj_ =
      register_module("value_proj", torch::nn::Linear(options.embed_dims, options.embed_dims));
  reset_parameters();
}

void MsDeformableAttention3dImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  reset_deformable_sampling(sampling_offsets_, attention_weights_, options_.num_heads,
                            options_.num_levels, options_.num_points);
  torch::nn::init::xavier_uniform_(value_proj_->weight);
  value_proj_->bias.zero_();
}

at::Tensor MsDeformableAttention3dImpl::forward(const at::Tensor& query, const at::Tensor& value,
                                                const at::Tensor& reference_points,
                                                const SpatialShapes& spatial_shapes) {
  const int64_t batch = query.size(0), num_query = query.size(1), num_value = value.size(1);
  const int64_t heads = options_.num_heads, levels = options_.num_levels;
  const int64_t points = options_.num_points, anchors = reference_points.size(2);
  if (static_cast<int64_t>(spatial_shapes.size()) != levels || points % anchors != 0) {
    throw runtime_error("MSDeformableAttention3D: " + std::to_string(spatial_shapes.size()) +
                        " spatial shapes for " + std::to_string(levels) + " levels, " +
                        std::to_string(points) + " points over " + std::to_string(anchors) +
                        " anchors");
  }
  const at::Tensor v = value_proj_->forward(value).view({batch, num_value, heads, -1});
  const at::Tensor offsets =
      sampling_offsets_->forward(query).view({batch, num_query, heads, levels, points, 2}) /
      level_offset_normalizer(spatial_shapes, query.device());
  const at::Tensor weights = attention_weights_->forward(query)
                                 .view({batch, num_query, heads, levels * points})
                                 .softmax(-1)
                                 .view({batch, num_query, heads, levels, points});
  // Points are grouped [P / D][D]: point p belongs to anchor p mod D.
  const at::Tensor locations =
      (reference_points.reshape({batch, num_query, 1, 1, 1, anchors, 2}) +
       offsets.view({batch, num_query, heads, levels, points / anchors, anchors, 2}))
          .view({batch, num_query, heads, levels, points, 2});
  return ms_deform_attn(v, spatial_shapes, locations, weights);
}

}  // namespace olv2
