#pragma once
// LaneSegNet's lane-segment transformer: `LaneSegNetTransformer` with its `LaneSegNetDecoder`,
// whose LaneAttention samples the BEV around points of each query's predicted boundaries.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <vector>

#include "olv2/data/bev_range.h"
#include "olv2/models/layers/ffn.h"
#include "olv2/models/layers/multi_scale_deformable_attention.h"
#include "olv2/models/layers/multihead_attention.h"

namespace olv2 {

struct LaneSegNetTransformerOptions {
  int64_t embed_dims = 256;
  int64_t points_num = 10;  // points per line (centerline and each boundary)
  int64_t pts_dim = 3;
  int64_t num_layers = 6;
  BevRange pc_range = {-51.2, -25.6, -2.3, 51.2, 25.6, 1.7};
  // The points of each boundary LaneAttention samples around: with 8 heads, head k < 4 takes
  // left-boundary point sample_idx[k], head 4 + k the right boundary's.
  std::vector<int64_t> sample_idx = {0, 3, 6, 9};
  MultiheadAttentionOptions self_attention;              // attn_cfgs[0]
  MultiScaleDeformableAttentionOptions cross_attention;  // attn_cfgs[1], LaneAttention
  FfnOptions ffn;
};

// Every decoder layer's outputs.
struct LaneSegNetDecoderOutputs {
  at::Tensor inter_states;      // [L, B, Q, E]
  at::Tensor init_reference;    // [B, Q, points_num, pts_dim] sigmoid
  at::Tensor inter_references;  // [L, B, Q, points_num, pts_dim] sigmoid, detached
  // The reference points each layer's LaneAttention received, [L, B, Q, 1, 2 * |sample_idx|, 2].
  at::Tensor attention_references;
  // Each layer's lane segments in metres, [L, B, Q, 3 * points_num * pts_dim]: centerline (the
  // refined reference points scaled to pc_range), then left (centerline + offset) and right
  // (centerline - offset) boundary.
  at::Tensor lanes;
};

// Lane segments in metres [B, Q, 3 * P * pts_dim] (centerline, left, right boundary) from a
// layer's centerline regression [B, Q, P * pts_dim] added to `reference` [B, Q, P, pts_dim]
// (sigmoid space) in inverse-sigmoid space, its sigmoid scaled to `range`, and the boundaries'
// offset [B, Q, P * pts_dim] in metres (left = centerline + offset, right = centerline - offset).
// Also returns the refined reference (the sigmoid) as `refined` when given.
at::Tensor lane_segments_from_regression(const at::Tensor& center_regression,
                                         const at::Tensor& offset, const at::Tensor& reference,
                                         const BevRange& range, at::Tensor* refined = nullptr);

// LaneSegNet `LaneSegNetTransformer`: queries and their positions from the query embedding, one
// reference point per query (`reference_points`, sigmoid) repeated for every centerline point,
// then `decoder.layers.i` (self-attention, norm, LaneAttention on the BEV, norm, FFN, norm). The
// first layer's LaneAttention samples around centerline points sample_idx (twice: the
// original's Python list repeated); after each layer the head's branches of that layer refine
// the centerline (`reg_center`, added in inverse-sigmoid space) and give the boundaries'
// offset (`reg_offset`, metres), and the next layer samples around points sample_idx of the
// predicted left and right boundaries (detached, normalised by pc_range).
class LaneSegNetTransformerImpl : public torch::nn::Module {
 public:
  explicit LaneSegNetTransformerImpl(const LaneSegNetTransformerOptions& options);

  // bev_feats [B, bev_h * bev_w, E]; query_embedding [Q, 2E] (positions, then queries);
  // reg_center / reg_offset: the head's branches, one per layer.
  LaneSegNetDecoderOutputs forward(const at::Tensor& bev_feats, const at::Tensor& query_embedding,
                                   int64_t bev_h, int64_t bev_w,
                                   torch::nn::ModuleListImpl& reg_center,
                                   torch::nn::ModuleListImpl& reg_offset);

  // The original's `init_weights`: Xavier-uniform on every parameter with more than one
  // dimension, then LaneAttention's own init, then `reference_points` Xavier with zero bias.
  void reset_parameters();
  void set_dropout(double p);

 private:
  LaneSegNetTransformerOptions options_;
  torch::nn::ModuleList layers_{nullptr};  // `decoder.layers`
  torch::nn::Linear reference_points_{nullptr};
};
TORCH_MODULE(LaneSegNetTransformer);

}  // namespace olv2
