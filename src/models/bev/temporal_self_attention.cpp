#include "olv2/models/bev/temporal_self_attention.h"

#include <torch/torch.h>

#include "olv2/config/section_readers.h"
#include "olv2/models/bev/offset_normalizer.h"
#include "olv2/models/layers/multi_scale_deformable_attention.h"
#include "olv2/util/error.h"

namespace olv2 {

Schema TemporalSelfAttentionOptions::schema(const std::string& type) {
  Schema schema = MultiScaleDeformableAttentionOptions::schema(type);
  schema.optional("num_bev_queue", Schema::integer());
  return schema;
}

TemporalSelfAttentionOptions TemporalSelfAttentionOptions::from_config(
    const ConfigNode& section, TemporalSelfAttentionCode code) {
  TemporalSelfAttentionOptions o;
  o.code = code;
  o.embed_dims = section.get<int64_t>("embed_dims", o.embed_dims);
  o.num_heads = section.get<int64_t>("num_heads", o.num_heads);
  o.num_levels = section.get<int64_t>("num_levels", o.num_levels);
  o.num_points = section.get<int64_t>("num_points", o.num_points);
  o.num_bev_queue = section.get<int64_t>("num_bev_queue", o.num_bev_queue);
  o.dropout = section.get<double>("dropout", o.dropout);
  return o;
}

TemporalSelfAttentionImpl::TemporalSelfAttentionImpl(const TemporalSelfAttentionOptions& options)
    : options_(options) {
  if (options.embed_dims % options.num_heads != 0) {
    throw input_error("TemporalSelfAttention: embed_dims " + std::to_string(options.embed_dims) +
                      " is not divisible by num_heads " + std::to_string(options.num_heads));
  }
  if (options.num_bev_queue != 2) {
    throw input_error("TemporalSelfAttention: num_bev_queue must be 2, got " +
                      std::to_string(options.num_bev_queue));
  }
  const int64_t samples =
      options.num_bev_queue * options.num_heads * options.num_levels * options.num_points;
  const int64_t in_channels = options.embed_dims * options.num_bev_queue;
  dropout_ = register_module("dropout", torch::nn::Dropout(options.dropout));
  sampling_offsets_ =
      register_module("sampling_offsets", torch::nn::Linear(in_channels, samples * 2));
  attention_weights_ =
      register_module("attention_weights", torch::nn::Linear(in_channels, samples));
  value_proj_ =
      register_module("value_proj", torch::nn::Linear(options.embed_dims, options.embed_dims));
  output_proj_ =
      register_module("output_proj", torch::nn::Linear(options.embed_dims, options.embed_dims));
  reset_parameters();
}

void TemporalSelfAttentionImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  reset_deformable_sampling(sampling_offsets_, attention_weights_, options_.num_heads,
                            options_.num_bev_queue * options_.num_levels, options_.num_points);
  for (torch::nn::Linear& linear : {std::ref(value_proj_), std::ref(output_proj_)}) {
    torch::nn::init::xavier_uniform_(linear->weight);
    linear->bias.zero_();
  }
}

at::Tensor TemporalSelfAttentionImpl::forward(const at::Tensor& query, const at::Tensor& query_pos,
                                              const at::Tensor& reference_points,
                                              const SpatialShapes& spatial_shapes) {
  const int64_t batch = query.size(0), num_query = query.size(1);
  const int64_t queue = options_.num_bev_queue, heads = options_.num_heads;
  const int64_t levels = options_.num_levels, points = options_.num_points;
  if (static_cast<int64_t>(spatial_shapes.size()) != levels) {
    throw runtime_error("TemporalSelfAttention: " + std::to_string(spatial_shapes.size()) +
                        " spatial shapes for " + std::to_string(levels) + " levels");
  }
  const bool toponet = options_.code == TemporalSelfAttentionCode::kTopoNet;
  // The first half of the offset input: the plug-in's every other value copy (each sample's
  // query); TopoNet's first `batch` copies, where copies 2k and 2k + 1 are sample k's query.
  const at::Tensor first_half =
      toponet ? query.index_select(
                    0, torch::arange(batch, query.options().dtype(torch::kLong)).div(2, "floor"))
              : query;
  const at::Tensor offset_input = torch::cat({first_half, query + query_pos}, -1);
  // Both value copies are the query, so it is projected once and repeated. Original behaviour:
  // the plug-in applies value_proj twice (spec §9 item 1).
  const at::Tensor projected =
      toponet ? value_proj_->forward(query) : value_proj_->forward(value_proj_->forward(query));
  const at::Tensor value = projected.unsqueeze(1)
                               .expand({batch, queue, num_query, options_.embed_dims})
                               .reshape({batch * queue, num_query, heads, -1});

  // [B, Q, heads, queue, ...] -> [B * queue, Q, heads, ...]
  const at::Tensor offsets = sampling_offsets_->forward(offset_input)
                                 .view({batch, num_query, heads, queue, levels, points, 2})
                                 .permute({0, 3, 1, 2, 4, 5, 6})
                                 .reshape({batch * queue, num_query, heads, levels, points, 2});
  const at::Tensor weights = attention_weights_->forward(offset_input)
                                 .view({batch, num_query, heads, queue, levels * points})
                                 .softmax(-1)
                                 .view({batch, num_query, heads, queue, levels, points})
                                 .permute({0, 3, 1, 2, 4, 5})
                                 .reshape({batch * queue, num_query, heads, levels, points});
  const at::Tensor locations = reference_points.unsqueeze(2).unsqueeze(4) +
                               offsets / level_offset_normalizer(spatial_shapes, offsets.device());
  const at::Tensor sampled = ms_deform_attn(value, spatial_shapes, locations, weights);
  const at::Tensor averaged = sampled.view({batch, queue, num_query, -1}).mean(1);
  return query + dropout_->forward(output_proj_->forward(averaged));
}

}  // namespace olv2
