#pragma once
// TopoNet's lane transformer: `TopoNetTransformerDecoderOnly` with its scene-graph decoder
// (`TopoNetSGNNDecoder` of `SGNNDecoderLayer`s) over the BEV.
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

#include "olv2/models/layers/multi_scale_deformable_attention.h"
#include "olv2/models/layers/multihead_attention.h"
#include "olv2/models/layers/scene_graph_ffn.h"

namespace olv2 {

struct TopoNetTransformerOptions {
  int64_t embed_dims = 256;
  int64_t pts_dim = 3;  // the reference point's coordinates: (x, y, z), or (x, y) on subset B
  int64_t num_layers = 6;
  MultiheadAttentionOptions self_attention;              // attn_cfgs[0]
  MultiScaleDeformableAttentionOptions cross_attention;  // attn_cfgs[1], one BEV level
  SceneGraphFfnOptions ffn;
};

// Every decoder layer's outputs.
struct TopoNetDecoderOutputs {
  at::Tensor inter_states;    // [L, B, Q, E]
  at::Tensor init_reference;  // [B, Q, pts_dim] sigmoid, normalised to the BEV range
  at::Tensor lclc;            // [L, B, Q, Q, 1] lane-lane relation logits
  at::Tensor lcte;            // [L, B, Q, T, 1] lane-traffic-element relation logits
};

// TopoNet `TopoNetTransformerDecoderOnly`: queries and their positions from the query embedding,
// a reference point per query (`reference_points`, never refined: every layer samples the BEV at
// its (x, y)), then `decoder.layers.i`, each (self-attention, norm, deformable cross-attention
// on the BEV, norm, FFN_SGNN, norm). After each layer the head's relation branches of that layer
// score the lane pairs and the lane-traffic-element pairs; their sigmoid, detached, is the next
// layer's graph (zeros for the first).
class TopoNetTransformerImpl : public torch::nn::Module {
 public:
  explicit TopoNetTransformerImpl(const TopoNetTransformerOptions& options);

  // bev_feats [B, bev_h*bev_w, E]; query_embedding [Q, 2E] (positions, then queries);
  // lclc_branches / lcte_branches: one RelationshipHead per layer; te_feats [L, B, T, E] the
  // embedded traffic-element states and te_cls_scores [L, B, T, C] their logits, per layer.
  TopoNetDecoderOutputs forward(const at::Tensor& bev_feats, const at::Tensor& query_embedding,
                                int64_t bev_h, int64_t bev_w,
                                torch::nn::ModuleListImpl& lclc_branches,
                                torch::nn::ModuleListImpl& lcte_branches,
                                const at::Tensor& te_feats, const at::Tensor& te_cls_scores);

  // The original's `init_weights`: Xavier-uniform on every parameter with more than one
  // dimension, then the deformable attentions' own init, then `reference_points` Xavier with
  // zero bias.
  void reset_parameters();
  void set_dropout(double p);

 private:
  TopoNetTransformerOptions options_;
  torch::nn::ModuleList layers_{nullptr};  // `decoder.layers`
  torch::nn::Linear reference_points_{nullptr};
};
TORCH_MODULE(TopoNetTransformer);

}  // namespace olv2
