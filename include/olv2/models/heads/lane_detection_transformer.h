#pragma once
// The lane head's transformer, OpenLane-V2's `PerceptionTransformer` with its
// `LaneDetectionTransformerDecoder` over the BEV.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "olv2/models/layers/transformer_layer.h"

namespace olv2 {

struct LaneDetectionTransformerOptions {
  int64_t embed_dims = 256;
  int64_t num_layers = 6;
  int64_t num_heads = 8;  // both the self-attention and the deformable cross-attention
  int64_t num_points = 4;
  int64_t feedforward_channels = 512;
  double ffn_drop = 0.1;
  double attention_dropout = 0.1;  // multi-head self-attention: weights and output
  double msda_dropout = 0.1;       // deformable cross-attention output
};

// OpenLane-V2 `LaneDetectionTransformerDecoder` without box refinement (`reg_branches` is
// never passed in the lane configs): `layers.i` are `CustomDetrTransformerDecoderLayer`s
// whose deformable cross-attention samples one BEV level at the same 2-D reference point in
// every layer.
class LaneDetectionTransformerDecoderImpl : public torch::nn::Module {
 public:
  explicit LaneDetectionTransformerDecoderImpl(const LaneDetectionTransformerOptions& options);

  // query, query_pos [Q, B, E]; value [H*W, B, E]; reference_points [B, Q, 1, 2] normalised
  // (x, y) -> every layer's output [L, Q, B, E].
  at::Tensor forward(const at::Tensor& query, const at::Tensor& value, const at::Tensor& query_pos,
                     const at::Tensor& reference_points, const SpatialShapes& spatial_shapes);

  void set_dropout(double p);

 private:
  torch::nn::ModuleList layers_{nullptr};
};
TORCH_MODULE(LaneDetectionTransformerDecoder);

struct LaneTransformerOutputs {
  at::Tensor inter_states;    // [L, B, Q, E] decoder output of every layer
  at::Tensor init_reference;  // [B, Q, 3] sigmoid (x, y, z), normalised to the BEV range
};

// OpenLane-V2 `PerceptionTransformer` as the lane head uses it: queries and their positions
// from the query embedding, a 3-D reference point per query (`reference_points`), then the
// decoder (`decoder`) over the BEV features.
class PerceptionTransformerImpl : public torch::nn::Module {
 public:
  explicit PerceptionTransformerImpl(const LaneDetectionTransformerOptions& options);

  // bev_feats [B, bev_h*bev_w, E] (row-major cells); query_embedding [Q, 2E] (positions, then
  // queries).
  LaneTransformerOutputs forward(const at::Tensor& bev_feats, const at::Tensor& query_embedding,
                                 int64_t bev_h, int64_t bev_w);

  // The original's `init_weights`: Xavier-uniform on every parameter with more than one
  // dimension (biases keep their defaults), then the deformable attentions' own init, then
  // `reference_points` Xavier with zero bias.
  void reset_parameters();
  void set_dropout(double p) { decoder_->set_dropout(p); }

 private:
  LaneDetectionTransformerOptions options_;
  LaneDetectionTransformerDecoder decoder_{nullptr};
  torch::nn::Linear reference_points_{nullptr};
};
TORCH_MODULE(PerceptionTransformer);

}  // namespace olv2
