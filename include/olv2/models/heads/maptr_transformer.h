#pragma once
// MapTR's decoder-only transformer over the BEV (`MapTRTransformerDecoderOnly` with its
// `MapTRDecoder`), as LaneSegNet's Map Element Bucket runs it.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

#include "olv2/models/layers/ffn.h"
#include "olv2/models/layers/multi_scale_deformable_attention.h"
#include "olv2/models/layers/multihead_attention.h"

namespace olv2 {

struct MapTrTransformerOptions {
  int64_t embed_dims = 256;
  int64_t pts_dim = 3;  // the reference points' coordinates, refined by the regression branches
  int64_t num_layers = 6;
  MultiheadAttentionOptions self_attention;              // attn_cfgs[0]
  MultiScaleDeformableAttentionOptions cross_attention;  // attn_cfgs[1], one BEV level
  FfnOptions ffn;
};

// Every decoder layer's outputs.
struct MapTrDecoderOutputs {
  at::Tensor inter_states;      // [L, B, Q, E]
  at::Tensor init_reference;    // [B, Q, pts_dim] sigmoid, normalised to the BEV range
  at::Tensor inter_references;  // [L, B, Q, pts_dim] after each layer's refinement (detached)
  at::Tensor regressions;       // [L, B, Q, pts_dim] each layer's regression branch on its states
};

// MapTR `MapTRTransformerDecoderOnly`: queries and their positions from the query embedding, a
// reference point per query from `reference_points`(position), then `decoder.layers.i`, each
// (self-attention, norm, deformable cross-attention on the BEV at the reference's (x, y), norm,
// FFN, norm). After each layer the head's regression branch of that layer refines the reference:
// sigmoid(regression + inverse_sigmoid(reference)), detached.
class MapTrTransformerImpl : public torch::nn::Module {
 public:
  explicit MapTrTransformerImpl(const MapTrTransformerOptions& options);

  // bev_feats [B, bev_h*bev_w, E]; query_embedding [Q, 2E] (positions, then queries);
  // reg_branches: one branch per layer (lane_branches.h), each giving pts_dim values.
  MapTrDecoderOutputs forward(const at::Tensor& bev_feats, const at::Tensor& query_embedding,
                              int64_t bev_h, int64_t bev_w,
                              const torch::nn::ModuleListImpl& reg_branches);

  // The original's `init_weights`: Xavier-uniform on every parameter with more than one
  // dimension, the deformable attentions' own init, `reference_points` Xavier with zero bias.
  void reset_parameters();
  void set_dropout(double p);

 private:
  MapTrTransformerOptions options_;
  torch::nn::ModuleList layers_{nullptr};  // `decoder.layers`
  torch::nn::Linear reference_points_{nullptr};
};
TORCH_MODULE(MapTrTransformer);

}  // namespace olv2
