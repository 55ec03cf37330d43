#pragma once
// mmcv's `MultiScaleDeformableAttention`, its `attn_cfgs` keys, and the sampling init every
// deformable attention shares.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <string>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/models/attention_registry.h"
#include "olv2/models/ops/ms_deform_attn.h"

namespace olv2 {

struct MultiScaleDeformableAttentionOptions : AttentionOptions {
  int64_t embed_dims = 256;
  int64_t num_heads = 8;
  int64_t num_levels = 4;
  int64_t num_points = 4;
  double dropout = 0.1;      // on the output, before the residual sum
  bool batch_first = false;  // [B, L, E] instead of [L, B, E]
  // LaneSegNet's `LaneAttention`: one reference point per head (reference_points
  // [B, Q, L, num_heads, 2], head h samples around point h), and the offsets' bias starts from 8
  // fixed directions, num_points / 8 rings of them, whatever num_heads is.
  bool per_head_reference_points = false;

  // The keys of a deformable attention of `type` as an `attn_cfgs` entry (mmcv's
  // MultiScaleDeformableAttention and the BEV and lane variants): embed_dims, num_heads,
  // num_levels, num_points, im2col_step, dropout, batch_first.
  static Schema schema(const std::string& type);
  static MultiScaleDeformableAttentionOptions from_config(const ConfigNode& section);
  // `type: LaneAttention`: the same keys, per_head_reference_points set; num_points must be a
  // multiple of 8.
  static MultiScaleDeformableAttentionOptions lane_attention_from_config(const ConfigNode& section);
};

// mmcv `MultiScaleDeformableAttention` (also OpenLane-V2's `CustomMSDeformableAttention`,
// which computes the same): `sampling_offsets`, `attention_weights`, `value_proj`,
// `output_proj`. Offsets and weights come from query + query_pos; the softmax runs over the
// levels x points of each head. Reference points are 2-D (x, y: offsets are divided by the
// level's (w, h)) or 4-D boxes (cx, cy, w, h: offsets are scaled by wh / (2 * num_points)),
// one per level, or one per level and head (per_head_reference_points).
// Returns identity + Dropout(output_proj(sampled)); identity defaults to the query.
class MultiScaleDeformableAttentionImpl : public torch::nn::Module {
 public:
  explicit MultiScaleDeformableAttentionImpl(const MultiScaleDeformableAttentionOptions& options);

  // query [Q, B, E] (or [B, Q, E] when batch_first); value [S, B, E] (undefined = query);
  // key_padding_mask [B, S] bool, true = the value token is zeroed (undefined = none);
  // reference_points [B, Q, L, 2 or 4], or [B, Q, L, num_heads, 2] per head.
  at::Tensor forward(const at::Tensor& query, const at::Tensor& value, const at::Tensor& identity,
                     const at::Tensor& query_pos, const at::Tensor& key_padding_mask,
                     const at::Tensor& reference_points, const SpatialShapes& spatial_shapes);

  void reset_parameters();  // mmcv `init_weights`
  void set_dropout(double p) { dropout_->options.p(p); }
  const MultiScaleDeformableAttentionOptions& options() const { return options_; }

 private:
  MultiScaleDeformableAttentionOptions options_;
  torch::nn::Linear sampling_offsets_{nullptr};
  torch::nn::Linear attention_weights_{nullptr};
  torch::nn::Linear value_proj_{nullptr};
  torch::nn::Linear output_proj_{nullptr};
  torch::nn::Dropout dropout_{nullptr};
};
TORCH_MODULE(MultiScaleDeformableAttention);

// The sampling-offset bias mmcv starts from: per head h a unit direction at angle 2*pi*h/H,
// scaled so its larger coordinate is 1 and multiplied by point index + 1; laid out
// [head][extra...][point][xy] with `repeats` = the product of the axes between head and point
// (levels, or queues x levels). Shared by every deformable attention's init.
at::Tensor deformable_offset_bias_init(int64_t num_heads, int64_t repeats, int64_t num_points);

// LaneAttention's sampling-offset bias: 8 unit directions at angles 2*pi*k/8, scaled so their
// larger coordinate is 1, each repeated in num_points / 8 rings scaled 1, 2, ...; the same for
// every head and level, laid out [head][level][direction][ring][xy].
at::Tensor lane_attention_offset_bias_init(int64_t num_heads, int64_t num_levels,
                                           int64_t num_points);

// mmcv's init of a deformable attention's sampling: offsets weight 0 and the bias above,
// attention weights 0.
void reset_deformable_sampling(torch::nn::Linear& sampling_offsets,
                               torch::nn::Linear& attention_weights, int64_t num_heads,
                               int64_t repeats, int64_t num_points);

}  // namespace olv2
