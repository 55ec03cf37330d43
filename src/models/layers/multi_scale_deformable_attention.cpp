#include "olv2/models/layers/multi_scale_deformable_attention.h"

#include <torch/torch.h>

#include <cmath>

#include "olv2/config/section_readers.h"
#include "olv2/util/error.h"
#include "olv2/util/math_constants.h"

namespace olv2 {

Schema MultiScaleDeformableAttentionOptions::schema(const std::string& type) {
  Schema schema = typed_schema(type);
  schema.optional("embed_dims", Schema::integer())
      .optional("num_heads", Schema::integer())
      .optional("num_levels", Schema::integer())
      .optional("num_points", Schema::integer())
      .optional("im2col_step", Schema::integer())
      .optional("dropout", ratio_schema())
      .optional("batch_first", Schema::boolean());
  return schema;
}

MultiScaleDeformableAttentionOptions MultiScaleDeformableAttentionOptions::from_config(
    const ConfigNode& section) {
  MultiScaleDeformableAttentionOptions o;
  o.embed_dims = section.get<int64_t>("embed_dims", o.embed_dims);
  o.num_heads = section.get<int64_t>("num_heads", o.num_heads);
  o.num_levels = section.get<int64_t>("num_levels", o.num_levels);
  o.num_points = section.get<int64_t>("num_points", o.num_points);
  o.dropout = section.get<double>("dropout", o.dropout);
  o.batch_first = section.get<bool>("batch_first", o.batch_first);
  return o;
}

MultiScaleDeformableAttentionOptions
MultiScaleDeformableAttentionOptions::lane_attention_from_config(const ConfigNode& section) {
  MultiScaleDeformableAttentionOptions o = from_config(section);
  o.per_head_reference_points = true;
  if (o.num_points % 8 != 0) {
    throw input_error(section.at("num_points").where() + ": LaneAttention's num_points " +
                      std::to_string(o.num_points) +
                      " is not a multiple of 8 (its offsets start in rings of 8 directions)");
  }
  return o;
}

at::Tensor lane_attention_offset_bias_init(int64_t num_heads, int64_t num_levels,
                                           int64_t num_points) {
  constexpr int64_t kDirections = 8;
  const int64_t rings = num_points / kDirections;
  const at::Tensor thetas =
      torch::arange(kDirections, torch::kFloat) * static_cast<float>(2.0 * kPi / kDirections);
  at::Tensor grid = torch::stack({thetas.cos(), thetas.sin()}, -1);
  grid = grid / std::get<0>(grid.abs().max(-1, /*keepdim=*/true));
  const at::Tensor scale = torch::arange(1, rings + 1, torch::kFloat).view({1, rings, 1});
  return (grid.view({kDirections, 1, 2}) * scale)
      .view({1, 1, kDirections, rings, 2})
      .expand({num_heads, num_levels, kDirections, rings, 2})
      .flatten();
}

at::Tensor deformable_offset_bias_init(int64_t num_heads, int64_t repeats, int64_t num_points) {
  const at::Tensor thetas =
      torch::arange(num_heads, torch::kFloat) * static_cast<float>(2.0 * kPi / num_heads);
  at::Tensor grid = torch::stack({thetas.cos(), thetas.sin()}, -1);
  grid = grid / std::get<0>(grid.abs().max(-1, /*keepdim=*/true));
  grid = grid.view({num_heads, 1, 1, 2}).repeat({1, repeats, num_points, 1});
  const at::Tensor scale =
      torch::arange(1, num_points + 1, torch::kFloat).view({1, 1, num_points, 1});
  return (grid * scale).flatten();
}

void reset_deformable_sampling(torch::nn::Linear& sampling_offsets,
                               torch::nn::Linear& attention_weights, int64_t num_heads,
                               int64_t repeats, int64_t num_points) {
  torch::NoGradGuard no_grad;
  sampling_offsets->weight.zero_();
  sampling_offsets->bias.copy_(deformable_offset_bias_init(num_heads, repeats, num_points));
  attention_weights->weight.zero_();
  attention_weights->bias.zero_();
}

MultiScaleDeformableAttentionImpl::MultiScaleDeformableAttentionImpl(
    const MultiScaleDeformableAttentionOptions& options)
    : options_(options) {
  if (options.embed_dims % options.num_heads != 0) {
    throw input_error("MultiScaleDeformableAttention: embed_dims " +
                      std::to_string(options.embed_dims) + " is not divisible by num_heads " +
                      std::to_string(options.num_heads));
  }
  const int64_t samples = options.num_heads * options.num_levels * options.num_points;
  sampling_offsets_ =
      register_module("sampling_offsets", torch::nn::Linear(options.embed_dims, samples * 2));
  attention_weights_ =
      register_module("attention_weights", torch::nn::Linear(options.embed_dims, samples));
  value_proj_ =
      register_module("value_proj", torch::nn::Linear(options.embed_dims, options.embed_dims));
  output_proj_ =
      register_module("output_proj", torch::nn::Linear(options.embed_dims, options.embed_dims));
  dropout_ = register_module("dropout", torch::nn::Dropout(options.dropout));
  reset_parameters();
}

void MultiScaleDeformableAttentionImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  reset_deformable_sampling(sampling_offsets_, attention_weights_, options_.num_heads,
                            options_.num_levels, options_.num_points);
  if (options_.per_head_reference_points) {
    sampling_offsets_->bias.copy_(lane_attention_offset_bias_init(
        options_.num_heads, options_.num_levels, options_.num_points));
  }
  for (torch::nn::Linear& linear : {std::ref(value_proj_), std::ref(output_proj_)}) {
    torch::nn::init::xavier_uniform_(linear->weight);
    linear->bias.zero_();
  }
}

at::Tensor MultiScaleDeformableAttentionImpl::forward(
    const at::Tensor& query_in, const at::Tensor& value_in, const at::Tensor& identity_in,
    const at::Tensor& query_pos, const at::Tensor& key_padding_mask,
    const at::Tensor& reference_points, const SpatialShapes& spatial_shapes) {
  const at::Tensor identity = identity_in.defined() ? identity_in : query_in;
  at::Tensor query = query_pos.defined() ? query_in + query_pos : query_in;
  at::Tensor value = value_in.defined() ? value_in : query_in;
  if (!options_.batch_first) {
    query = query.transpose(0, 1);
    value = value.transpose(0, 1);
  }
  const int64_t batch = query.size(0), num_query = query.size(1), num_value = value.size(1);
  const int64_t heads = options_.num_heads, levels = options_.num_levels,
                points = options_.num_points;
  if (static_cast<int64_t>(spatial_shapes.size()) != levels) {
    throw runtime_error("MultiScaleDeformableAttention: " + std::to_string(levels) +
                        " levels configured, " + std::to_string(spatial_shapes.size()) + " given");
  }

  value = value_proj_(value);
  if (key_padding_mask.defined()) value = value.masked_fill(key_padding_mask.unsqueeze(-1), 0.0);
  value = value.view({batch, num_value, heads, -1});
  const at::Tensor offsets =
      sampling_offsets_(query).view({batch, num_query, heads, levels, points, 2});
  const at::Tensor weights = attention_weights_(query)
                                 .view({batch, num_query, heads, levels * points})
                                 .softmax(-1)
                                 .view({batch, num_query, heads, levels, points});

  at::Tensor locations;
  at::Tensor ref;
  if (options_.per_head_reference_points) {
    if (reference_points.dim() != 5 || reference_points.size(3) != heads ||
        reference_points.size(-1) != 2) {
      throw runtime_error("LaneAttention: expected reference points [B, Q, L, " +
                          std::to_string(heads) + " (one per head), 2]");
    }
    ref = reference_points.permute({0, 1, 3, 2, 4}).unsqueeze(4);  // [B, Q, H, L, 1, 2]
  } else {
    ref = reference_points.unsqueeze(2).unsqueeze(4);  // [B, Q, 1, L, 1, 2|4]
  }
  if (reference_points.size(-1) == 2) {
    std::vector<float> wh;
    for (const auto& [h, w] : spatial_shapes) {
      wh.push_back(static_cast<float>(w));
      wh.push_back(static_cast<float>(h));
    }
    const at::Tensor normalizer =
        torch::tensor(wh, offsets.options()).view({1, 1, 1, levels, 1, 2});
    locations = ref + offsets / normalizer;
  } else if (reference_points.size(-1) == 4) {
    locations =
        ref.narrow(-1, 0, 2) + offsets / static_cast<double>(points) * ref.narrow(-1, 2, 2) * 0.5;
  } else {
    throw runtime_error("MultiScaleDeformableAttention: reference points must end in 2 or 4, got " +
                        std::to_string(reference_points.size(-1)));
  }
  at::Tensor output = output_proj_(
      ms_deform_attn(value, spatial_shapes, locations, weights).to(query.scalar_type()));
  if (!options_.batch_first) output = output.transpose(0, 1);
  return dropout_(output) + identity;
}

}  // namespace olv2
